// Package retry holds retry, polling and reconnect loops from a scheduler
// agent, a metrics importer, an HTTP client, a log scanner, a provisioner and
// a service-catalog syncer.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"math"
	"net/http"
	"sync"
	"time"
)

// Driver fingerprint stream

// Fingerprint is one capability report sent by a task driver.
type Fingerprint struct {
	Health     string
	Attributes map[string]string
}

// instanceManager keeps the driver's fingerprint stream open for as long as
// the manager runs.
type instanceManager struct {
	ctx        context.Context
	logger     *log.Logger
	backoff    time.Duration
	openStream func(ctx context.Context) (<-chan Fingerprint, func(), error)
	apply      func(Fingerprint)
	done       chan struct{}
}

// newInstanceManager returns a manager bound to ctx.
//
// ok: retrycancel
func newInstanceManager(ctx context.Context, logger *log.Logger, open func(context.Context) (<-chan Fingerprint, func(), error), apply func(Fingerprint)) *instanceManager {
	return &instanceManager{
		ctx:        ctx,
		logger:     logger,
		backoff:    5 * time.Second,
		openStream: open,
		apply:      apply,
		done:       make(chan struct{}),
	}
}

// fingerprintLoop opens the driver's fingerprint stream, applies every
// fingerprint it delivers and opens a new stream whenever the current one
// closes.
//
// From: hashicorp/nomad#6517
// bug: retrycancel
func (m *instanceManager) fingerprintLoop() {
	defer close(m.done)
	timer := time.NewTimer(0)
	defer timer.Stop()

	var fpCh <-chan Fingerprint
	stop := func() {}
	defer func() { stop() }()

	for {
		select {
		case <-m.ctx.Done():
			return
		case <-timer.C:
			ch, cancel, err := m.openStream(m.ctx)
			if err != nil {
				m.logger.Printf("failed to open fingerprint stream: %v", err)
				timer.Reset(m.backoff)
				continue
			}
			fpCh, stop = ch, cancel
		case fp, ok := <-fpCh:
			if ok {
				m.apply(fp)
				continue
			}
			stop()
			stop, fpCh = func() {}, nil
			m.logger.Printf("fingerprint stream closed, reopening")
			timer.Reset(0)
		}
	}
}

// fingerprintLoopNearMiss opens the driver's fingerprint stream, applies
// every fingerprint it delivers and opens a new stream whenever the current
// one closes while the manager is still running.
//
// ok: retrycancel
func (m *instanceManager) fingerprintLoopNearMiss() {
	defer close(m.done)
	timer := time.NewTimer(0)
	defer timer.Stop()

	var fpCh <-chan Fingerprint
	stop := func() {}
	defer func() { stop() }()

	for {
		select {
		case <-m.ctx.Done():
			return
		case <-timer.C:
			if m.ctx.Err() != nil {
				return
			}
			ch, cancel, err := m.openStream(m.ctx)
			if err != nil {
				m.logger.Printf("failed to open fingerprint stream: %v", err)
				timer.Reset(m.backoff)
				continue
			}
			fpCh, stop = ch, cancel
		case fp, ok := <-fpCh:
			if ok {
				m.apply(fp)
				continue
			}
			stop()
			stop, fpCh = func() {}, nil
			// The stream also closes when the manager shuts down.
			if m.ctx.Err() != nil {
				return
			}
			m.logger.Printf("fingerprint stream closed, reopening")
			timer.Reset(0)
		}
	}
}

// Metrics importer backoff

// ErrBadRequest marks failures that retrying cannot fix.
var ErrBadRequest = errors.New("bad request")

// Backoff retries an import call with exponentially growing pauses.
type Backoff struct {
	retries     int
	factor      float64
	minDuration time.Duration
	logger      *log.Logger
}

// NewBackoff returns the importer's default backoff policy.
//
// ok: retrycancel
func NewBackoff(logger *log.Logger) *Backoff {
	return &Backoff{retries: 5, factor: 1.8, minDuration: time.Second, logger: logger}
}

// delay returns the pause before retry number i.
//
// ok: retrycancel
func (b *Backoff) delay(i int) time.Duration {
	return time.Duration(float64(b.minDuration) * math.Pow(b.factor, float64(i)))
}

// Retry calls cb until it succeeds or fails with ErrBadRequest, pausing
// between attempts, and returns the number of retries made.
//
// From: VictoriaMetrics/VictoriaMetrics#4442
// bug: retrycancel
func (b *Backoff) Retry(ctx context.Context, cb func() error) (uint64, error) {
	var attempt uint64
	var err error
	for i := 0; i < b.retries; i++ {
		err = cb()
		if err == nil {
			return attempt, nil
		}
		if errors.Is(err, ErrBadRequest) {
			return attempt, fmt.Errorf("unrecoverable error: %w", err)
		}
		attempt++
		dur := b.delay(i)
		b.logger.Printf("got error: %s on attempt: %d; will retry in %v", err, attempt, dur)
		time.Sleep(dur)
	}
	return attempt, fmt.Errorf("execution failed after %d retry attempts: %w", b.retries, err)
}

// RetryNearMiss calls cb until it succeeds or fails with ErrBadRequest,
// pausing between attempts, and returns the number of retries made. A pause
// ends early when ctx is done, returning the context's error with the last
// failure.
//
// ok: retrycancel
func (b *Backoff) RetryNearMiss(ctx context.Context, cb func() error) (uint64, error) {
	var attempt uint64
	var err error
	for i := 0; i < b.retries; i++ {
		err = cb()
		if err == nil {
			return attempt, nil
		}
		if errors.Is(err, ErrBadRequest) {
			return attempt, fmt.Errorf("unrecoverable error: %w", err)
		}
		attempt++
		dur := b.delay(i)
		b.logger.Printf("got error: %s on attempt: %d; will retry in %v", err, attempt, dur)
		t := time.NewTimer(dur)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return attempt, fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		}
	}
	return attempt, fmt.Errorf("execution failed after %d retry attempts: %w", b.retries, err)
}

// Ingest HTTP client

// Client sends ingest requests and retries failed ones.
type Client struct {
	httpClient *http.Client
	maxRetries int
	baseDelay  time.Duration
	sleep      func(time.Duration)
}

// NewClient returns a client using hc. Tests replace sleep with a fake.
//
// ok: retrycancel
func NewClient(hc *http.Client) *Client {
	return &Client{httpClient: hc, maxRetries: 4, baseDelay: 200 * time.Millisecond, sleep: time.Sleep}
}

// drain reads and closes a response body so the connection can be reused.
//
// ok: retrycancel
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// Do sends req, retrying transport errors and 5xx responses with
// exponentially growing pauses.
//
// From: axiomhq/axiom-go#281
// bug: retrycancel
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.httpClient.Do(req)
		switch {
		case err != nil:
			lastErr = err
		case resp.StatusCode >= 500:
			drain(resp)
			lastErr = fmt.Errorf("server returned %s", resp.Status)
		default:
			return resp, nil
		}
		c.sleep(c.baseDelay << attempt)
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.maxRetries+1, lastErr)
}

// DoNearMiss sends req, retrying transport errors and 5xx responses with
// exponentially growing pauses. A request whose context is done is returned
// at once with the context's error.
//
// ok: retrycancel
func (c *Client) DoNearMiss(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var lastErr error
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		resp, err := c.httpClient.Do(req)
		switch {
		case err != nil:
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			if errors.Is(err, context.Canceled) {
				return nil, err
			}
			lastErr = err
		case resp.StatusCode >= 500:
			drain(resp)
			lastErr = fmt.Errorf("server returned %s", resp.Status)
		default:
			return resp, nil
		}
		t := time.NewTimer(c.baseDelay << attempt)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", c.maxRetries+1, lastErr)
}

// Log scanner fetchers

// fetchRange is an inclusive range of log entry indices.
type fetchRange struct {
	start, end int64
}

// EntryBatch is a run of raw entries starting at Start.
type EntryBatch struct {
	Start   int64
	Entries [][]byte
}

// LogClient fetches raw entries from a transparency log.
type LogClient interface {
	GetRawEntries(ctx context.Context, start, end int64) ([][]byte, error)
}

// Fetcher downloads entry ranges and hands the batches to the scanner.
type Fetcher struct {
	client  LogClient
	batches chan<- EntryBatch
	logger  *log.Logger
	pause   time.Duration
}

// fetcherJob takes ranges from the ranges channel and fetches each one in
// pieces until the whole range has been delivered.
//
// From: google/certificate-transparency-go#208
// bug: retrycancel
func (f *Fetcher) fetcherJob(ctx context.Context, ranges <-chan fetchRange, wg *sync.WaitGroup) {
	defer wg.Done()
	for r := range ranges {
		for r.start <= r.end {
			entries, err := f.client.GetRawEntries(ctx, r.start, r.end)
			if err != nil {
				f.logger.Printf("GetRawEntries() failed: %v", err)
				continue
			}
			select {
			case f.batches <- EntryBatch{Start: r.start, Entries: entries}:
			case <-ctx.Done():
				return
			}
			r.start += int64(len(entries))
		}
	}
}

// fetcherJobNearMiss takes ranges from the ranges channel and fetches each
// one in pieces until the whole range has been delivered, pausing after a
// failed fetch and stopping when ctx is done.
//
// ok: retrycancel
func (f *Fetcher) fetcherJobNearMiss(ctx context.Context, ranges <-chan fetchRange, wg *sync.WaitGroup) {
	defer wg.Done()
	for r := range ranges {
		for r.start <= r.end {
			entries, err := f.client.GetRawEntries(ctx, r.start, r.end)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				f.logger.Printf("GetRawEntries() failed: %v", err)
				t := time.NewTimer(f.pause)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return
				}
				continue
			}
			select {
			case f.batches <- EntryBatch{Start: r.start, Entries: entries}:
			case <-ctx.Done():
				return
			}
			r.start += int64(len(entries))
		}
	}
}

// Node provisioner

// Delays yields n pauses, each twice as long as the previous one.
//
// ok: retrycancel
func Delays(base time.Duration, n int) iter.Seq[time.Duration] {
	return func(yield func(time.Duration) bool) {
		d := base
		for i := 0; i < n; i++ {
			if !yield(d) {
				return
			}
			d *= 2
		}
	}
}

// Host is a node waiting to be provisioned.
type Host struct {
	name      string
	pause     time.Duration
	maxTries  int
	configure func(ctx context.Context) error
	logger    *log.Logger
}

// Provision calls the node's configure RPC, retrying with growing pauses up
// to the configured number of attempts.
//
// From: choria-io/provisioner#83
// bug: retrycancel
func (h *Host) Provision(ctx context.Context) error {
	var lastErr error
	for d := range Delays(h.pause, h.maxTries) {
		if lastErr = h.configure(ctx); lastErr == nil {
			return nil
		}
		h.logger.Printf("provisioning %s failed, retrying in %s: %v", h.name, d, lastErr)
		t := time.NewTimer(d)
		<-t.C
	}
	return fmt.Errorf("provisioning %s failed after %d attempts: %w", h.name, h.maxTries, lastErr)
}

// ProvisionNearMiss calls the node's configure RPC, retrying with growing
// pauses up to the configured number of attempts; it checks ctx before each
// attempt and during each pause.
//
// ok: retrycancel
func (h *Host) ProvisionNearMiss(ctx context.Context) error {
	var lastErr error
	for d := range Delays(h.pause, h.maxTries) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if lastErr = h.configure(ctx); lastErr == nil {
			return nil
		}
		h.logger.Printf("provisioning %s failed, retrying in %s: %v", h.name, d, lastErr)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	return fmt.Errorf("provisioning %s failed after %d attempts: %w", h.name, h.maxTries, lastErr)
}

// Service catalog syncer

// CatalogClient lists services registered in the catalog.
type CatalogClient interface {
	Services(ctx context.Context, waitIndex uint64) (map[string][]string, uint64, error)
	Deregister(ctx context.Context, service string) error
}

// ConsulSyncer removes catalog services whose source objects are gone.
type ConsulSyncer struct {
	client       CatalogClient
	logger       *log.Logger
	reapInterval time.Duration
	keep         func(service string, tags []string) bool
}

// backoffRetry calls op with exponentially growing pauses until it
// succeeds, returning ctx's error as soon as ctx is done.
//
// ok: retrycancel
func backoffRetry(ctx context.Context, op func() error) error {
	delay := 50 * time.Millisecond
	for {
		err := op()
		if err == nil {
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-t.C:
		}
		if delay < 10*time.Second {
			delay *= 2
		}
	}
}

// reap deregisters the services that are no longer wanted.
//
// ok: retrycancel
func (s *ConsulSyncer) reap(ctx context.Context, services map[string][]string) {
	for name, tags := range services {
		if s.keep(name, tags) {
			continue
		}
		if err := s.client.Deregister(ctx, name); err != nil {
			s.logger.Printf("failed to deregister %s: %v", name, err)
		}
	}
}

// watchReapableServices watches the catalog with blocking queries and reaps
// services that are no longer wanted, waiting reapInterval between passes.
//
// From: hashicorp/consul-k8s#204
// bug: retrycancel
func (s *ConsulSyncer) watchReapableServices(ctx context.Context) {
	var index uint64 = 1
	for {
		var services map[string][]string
		err := backoffRetry(ctx, func() error {
			var err error
			services, index, err = s.client.Services(ctx, index)
			return err
		})
		if err != nil {
			s.logger.Printf("error querying services, will retry: %v", err)
			continue
		}
		s.reap(ctx, services)

		t := time.NewTimer(s.reapInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// watchReapableServicesNearMiss watches the catalog with blocking queries and
// reaps services that are no longer wanted, waiting reapInterval between
// passes and after a failed query.
//
// ok: retrycancel
func (s *ConsulSyncer) watchReapableServicesNearMiss(ctx context.Context) {
	var index uint64 = 1
	for {
		var services map[string][]string
		err := backoffRetry(ctx, func() error {
			var err error
			services, index, err = s.client.Services(ctx, index)
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.logger.Printf("error querying services, will retry: %v", err)
		} else {
			s.reap(ctx, services)
		}

		t := time.NewTimer(s.reapInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Loops that stop through helpers or loop conditions

// sleepCtx pauses for d and returns ctx's error if ctx ends first.
//
// ok: retrycancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// PollJob polls the job status until it is terminal. Pausing is delegated to
// sleepCtx, whose error ends the loop.
//
// ok: retrycancel
func PollJob(ctx context.Context, id string, status func(context.Context, string) (string, error)) (string, error) {
	for {
		st, err := status(ctx, id)
		if err == nil && (st == "succeeded" || st == "failed") {
			return st, nil
		}
		if err := sleepCtx(ctx, 2*time.Second); err != nil {
			return "", fmt.Errorf("polling job %s: %w", id, err)
		}
	}
}

// Reconnect keeps a session to the broker open, dialling again after the
// session ends, for as long as ctx is live.
//
// ok: retrycancel
func Reconnect(ctx context.Context, logger *log.Logger, dial func(context.Context) (io.Closer, <-chan error, error)) error {
	for ctx.Err() == nil {
		conn, closed, err := dial(ctx)
		if err != nil {
			logger.Printf("dial failed: %v", err)
			if err := sleepCtx(ctx, time.Second); err != nil {
				return err
			}
			continue
		}
		select {
		case err := <-closed:
			logger.Printf("session ended: %v", err)
			_ = conn.Close()
		case <-ctx.Done():
			_ = conn.Close()
		}
	}
	return ctx.Err()
}

// CallWithAttemptTimeout retries call when a single attempt exceeds its own
// short deadline, and stops as soon as the caller's context is done.
//
// ok: retrycancel
func CallWithAttemptTimeout(ctx context.Context, perAttempt time.Duration, attempts int, call func(context.Context) error) error {
	var err error
	for i := 0; i < attempts; i++ {
		attemptCtx, cancel := context.WithTimeout(ctx, perAttempt)
		err = call(attemptCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	return fmt.Errorf("all %d attempts timed out: %w", attempts, err)
}
