// Package retry holds retry, poll and reconnect loops that do, or do not,
// stop once their context is done.
package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"
)

// sleepCtx waits for d or until ctx is done, whichever comes first.
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

// drainClose discards what is left of a body and closes it so the
// connection can be reused.
// ok: retrycancel
func drainClose(body io.ReadCloser) error {
	_, err := io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	return errors.Join(err, body.Close())
}

// retryableStatus reports whether a status is worth retrying.
// ok: retrycancel
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable || code == http.StatusBadGateway
}

// ---------------------------------------------------------------------------
// An HTTP middleware that retries throttled GETs.

// retryTransport retries idempotent requests that got a retryable status.
type retryTransport struct {
	next        http.RoundTripper
	maxAttempts int
	backoff     func(attempt int) time.Duration
}

// RoundTrip retries throttled GET/HEAD requests. The delay between attempts
// is a plain time.Sleep, so a request whose context is canceled (the user
// closed the page, the job was aborted) keeps the goroutine parked for the
// whole backoff, then sends another doomed attempt.
// From: alcionai/corso#2882
// bug: retrycancel
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.next.RoundTrip(req)
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil || !retryableStatus(resp.StatusCode) || attempt >= t.maxAttempts {
			return resp, err
		}
		if err := drainClose(resp.Body); err != nil {
			return nil, fmt.Errorf("discard throttled response: %w", err)
		}
		time.Sleep(t.backoff(attempt))
	}
}

// retryTransportNearMiss is the same middleware with a context-aware wait.
type retryTransportNearMiss struct {
	next        http.RoundTripper
	maxAttempts int
	backoff     func(attempt int) time.Duration
}

// RoundTrip waits with sleepCtx on the request's context and returns its
// error as soon as it is done.
// ok: retrycancel
func (t *retryTransportNearMiss) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.next.RoundTrip(req)
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.next.RoundTrip(req)
		if err != nil || !retryableStatus(resp.StatusCode) || attempt >= t.maxAttempts {
			return resp, err
		}
		if err := drainClose(resp.Body); err != nil {
			return nil, fmt.Errorf("discard throttled response: %w", err)
		}
		if err := sleepCtx(req.Context(), t.backoff(attempt)); err != nil {
			return nil, err
		}
	}
}

// ---------------------------------------------------------------------------
// Waiting for a cloud resource to reach a lifecycle state.

// State is a lifecycle state.
type State string

// ResourceAPI reads resource state.
type ResourceAPI interface {
	GetState(ctx context.Context, id string) (State, error)
}

// Waiter polls resources.
type Waiter struct {
	api       ResourceAPI
	pollEvery time.Duration
}

// WaitForState polls until the resource reaches want. Errors are treated as
// transient and polling goes on at the next tick; nothing in the loop looks
// at ctx, so after a timeout or cancel it keeps ticking, each poll failing
// fast with the context error, forever.
// From: oracle/oci-go-sdk#133
// bug: retrycancel
func (w *Waiter) WaitForState(ctx context.Context, id string, want State) error {
	t := time.NewTicker(w.pollEvery)
	defer t.Stop()
	for {
		<-t.C
		st, err := w.api.GetState(ctx, id)
		if err != nil {
			continue
		}
		if st == want {
			return nil
		}
	}
}

// WaitForStateNearMiss selects on ctx.Done next to the ticker.
// ok: retrycancel
func (w *Waiter) WaitForStateNearMiss(ctx context.Context, id string, want State) error {
	t := time.NewTicker(w.pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to become %s: %w", id, want, ctx.Err())
		case <-t.C:
		}
		st, err := w.api.GetState(ctx, id)
		if err != nil {
			continue
		}
		if st == want {
			return nil
		}
	}
}

// ---------------------------------------------------------------------------
// An API client that honours Retry-After.

// APIClient talks to a rate-limited JSON API.
type APIClient struct {
	http      *http.Client
	autoRetry bool
}

// retryAfter parses a Retry-After header in seconds, defaulting to 1s.
// ok: retrycancel
func retryAfter(h http.Header) time.Duration {
	secs, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || secs < 0 {
		return time.Second
	}
	return time.Duration(secs) * time.Second
}

// decodeJSON decodes and closes a response body.
// ok: retrycancel
func decodeJSON(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("api: %s", resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Get fetches url into out, waiting out 429s when autoRetry is set. The wait
// is a bare receive from time.After, so a canceled request still sits out a
// Retry-After that can be minutes long before the next attempt fails.
// From: microsoft/kiota-http-go#72
// bug: retrycancel
func (c *APIClient) Get(ctx context.Context, url string, out any) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTooManyRequests && c.autoRetry {
			wait := retryAfter(resp.Header)
			if err := drainClose(resp.Body); err != nil {
				return err
			}
			<-time.After(wait)
			continue
		}
		return decodeJSON(resp, out)
	}
}

// GetNearMiss waits in a select on ctx.Done.
// ok: retrycancel
func (c *APIClient) GetNearMiss(ctx context.Context, url string, out any) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTooManyRequests && c.autoRetry {
			wait := retryAfter(resp.Header)
			if err := drainClose(resp.Body); err != nil {
				return err
			}
			if err := sleepCtx(ctx, wait); err != nil {
				return err
			}
			continue
		}
		return decodeJSON(resp, out)
	}
}

// ---------------------------------------------------------------------------
// Transaction retry state for a database driver.

// throttle produces growing delays with jitter.
type throttle struct {
	next time.Duration
	max  time.Duration
}

// delay returns the next delay and advances the throttle.
// ok: retrycancel
func (t *throttle) delay() time.Duration {
	d := t.next
	t.next = min(2*t.next, t.max)
	return d/2 + rand.N(d/2+1)
}

// txRetryState decides whether a managed transaction runs again.
type txRetryState struct {
	start    time.Time
	maxTotal time.Duration
	throttle throttle
	sleep    func(time.Duration)
	lastErr  error
	errs     []error
}

// isRetriable reports whether a transaction error is transient.
// ok: retrycancel
func isRetriable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Continue reports whether to retry and waits before returning true. The
// wait goes through the injected sleep func (time.Sleep in production), so a
// caller that cancels its transaction context still waits the full backoff
// and another attempt is started on a dead context.
// From: neo4j/neo4j-go-driver#601
// bug: retrycancel
func (s *txRetryState) Continue(ctx context.Context) bool {
	if s.lastErr == nil || !isRetriable(s.lastErr) {
		return false
	}
	if time.Since(s.start) > s.maxTotal {
		return false
	}
	s.errs = append(s.errs, s.lastErr)
	s.sleep(s.throttle.delay())
	return true
}

// ContinueNearMiss waits in a select on ctx.Done and records the context
// error when it gives up.
// ok: retrycancel
func (s *txRetryState) ContinueNearMiss(ctx context.Context) bool {
	if s.lastErr == nil || !isRetriable(s.lastErr) {
		return false
	}
	if time.Since(s.start) > s.maxTotal {
		return false
	}
	s.errs = append(s.errs, s.lastErr)
	if err := sleepCtx(ctx, s.throttle.delay()); err != nil {
		s.errs = append(s.errs, err)
		return false
	}
	return true
}

// ---------------------------------------------------------------------------
// Consuming from a message queue, reconnecting on failure.

// Delivery is a message.
type Delivery struct {
	Body []byte
}

// Broker opens consumers; Consume fails fast once ctx is done.
type Broker interface {
	Consume(ctx context.Context, queue string) (<-chan Delivery, error)
}

// Reactor consumes a queue.
type Reactor struct {
	mq      Broker
	queue   string
	backoff time.Duration
	handle  func(ctx context.Context, d Delivery) error
}

// drain handles deliveries until the channel closes (connection lost).
// ok: retrycancel
func (r *Reactor) drain(ctx context.Context, ch <-chan Delivery) error {
	for d := range ch {
		if err := r.handle(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// Consume reconnects whenever the consumer fails. The break in the ctx.Done
// case only leaves the select, so on shutdown the loop goes straight to
// continue, Consume fails at once with the context error, and the reactor
// spins through reconnect attempts instead of returning.
// From: chitoku-k/ejaculation-counter#114
// bug: retrycancel
func (r *Reactor) Consume(ctx context.Context) error {
	for {
		ch, err := r.mq.Consume(ctx, r.queue)
		if err != nil {
			t := time.NewTimer(r.backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				break
			case <-t.C:
			}
			continue
		}
		if err := r.drain(ctx, ch); err != nil {
			return err
		}
	}
}

// ConsumeNearMiss uses a labelled break so the ctx.Done case leaves the
// loop, then reports the context error.
// ok: retrycancel
func (r *Reactor) ConsumeNearMiss(ctx context.Context) error {
reconnect:
	for {
		ch, err := r.mq.Consume(ctx, r.queue)
		if err != nil {
			t := time.NewTimer(r.backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				break reconnect
			case <-t.C:
			}
			continue
		}
		if err := r.drain(ctx, ch); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// ---------------------------------------------------------------------------
// A reconnecting socket for a monitoring agent.

// Conn is a connected socket.
type Conn interface {
	io.ReadWriteCloser
}

// errStopped reports that the agent was stopped.
var errStopped = errors.New("socket: stopped")

// Reconnector dials a collector endpoint with backoff.
type Reconnector struct {
	dial     func(ctx context.Context) (Conn, error)
	stop     chan struct{}
	minDelay time.Duration
	maxDelay time.Duration
}

// connect dials until it succeeds or the agent is stopped. The wait watches
// only r.stop; the ctx of the current config generation is passed to dial
// but never waited on, so after a config reload cancels it the old loop
// keeps redialing with the stale settings until the whole agent stops.
// From: pganalyze/collector#833
// bug: retrycancel
func (r *Reconnector) connect(ctx context.Context) (Conn, error) {
	delay := r.minDelay
	for {
		c, err := r.dial(ctx)
		if err == nil {
			return c, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-r.stop:
			t.Stop()
			return nil, errStopped
		case <-t.C:
		}
		delay = min(2*delay, r.maxDelay)
	}
}

// connectNearMiss waits on the stop channel and the context.
// ok: retrycancel
func (r *Reconnector) connectNearMiss(ctx context.Context) (Conn, error) {
	delay := r.minDelay
	for {
		c, err := r.dial(ctx)
		if err == nil {
			return c, nil
		}
		t := time.NewTimer(delay)
		select {
		case <-r.stop:
			t.Stop()
			return nil, errStopped
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, r.maxDelay)
	}
}

// ---------------------------------------------------------------------------
// Long-polling a workflow service for decision tasks.

// Task is a decision task.
type Task struct {
	Token []byte
}

// TaskService long-polls; it returns (nil, nil) or DeadlineExceeded when the
// poll window passes with no task.
type TaskService interface {
	PollForDecisionTask(ctx context.Context, taskList string) (*Task, error)
}

// Poller polls one task list.
type Poller struct {
	svc         TaskService
	taskList    string
	pollTimeout time.Duration
}

// pollTask long-polls until a task arrives. An expired long poll is normal
// and is polled again; but the check cannot tell the per-poll timeout from
// the caller's own deadline, so once the worker's deadline passes every poll
// fails at once with DeadlineExceeded and the loop spins hot.
// From: cadence-workflow/cadence-go-client#241
// bug: retrycancel
func (p *Poller) pollTask(ctx context.Context) (*Task, error) {
	for {
		callCtx, cancel := context.WithTimeout(ctx, p.pollTimeout)
		t, err := p.svc.PollForDecisionTask(callCtx, p.taskList)
		cancel()
		switch {
		case err == nil && t != nil:
			return t, nil
		case err == nil, errors.Is(err, context.DeadlineExceeded):
			continue
		default:
			return nil, err
		}
	}
}

// pollTaskNearMiss only polls again when the parent context is still live.
// ok: retrycancel
func (p *Poller) pollTaskNearMiss(ctx context.Context) (*Task, error) {
	for {
		callCtx, cancel := context.WithTimeout(ctx, p.pollTimeout)
		t, err := p.svc.PollForDecisionTask(callCtx, p.taskList)
		cancel()
		if perr := ctx.Err(); perr != nil {
			return nil, perr
		}
		switch {
		case err == nil && t != nil:
			return t, nil
		case err == nil, errors.Is(err, context.DeadlineExceeded):
			continue
		default:
			return nil, err
		}
	}
}

// ---------------------------------------------------------------------------
// Correct loops that only look like they ignore the context.

// Backoff describes a retry schedule.
type Backoff struct {
	Initial time.Duration
	Cap     time.Duration
	Max     int
}

// Attempts yields attempt numbers, sleeping between them; the sleep ends
// early and the sequence stops when ctx is done.
// ok: retrycancel
func (b Backoff) Attempts(ctx context.Context) iter.Seq[int] {
	return func(yield func(int) bool) {
		d := b.Initial
		for i := 1; b.Max == 0 || i <= b.Max; i++ {
			if !yield(i) {
				return
			}
			if sleepCtx(ctx, d) != nil {
				return
			}
			d = min(2*d, b.Cap)
		}
	}
}

// Register registers a node with a registry, retrying on any error. The
// attempt sequence stops with ctx, after which the context error is
// returned in preference to the last attempt's error.
// ok: retrycancel
func Register(ctx context.Context, b Backoff, register func(context.Context) error) error {
	var last error
	for range b.Attempts(ctx) {
		if last = register(ctx); last == nil {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("register: attempts exhausted: %w", last)
}

// PollUntil polls cond while ctx is live, sleeping with a select on
// ctx.Done between polls.
// ok: retrycancel
func PollUntil(ctx context.Context, every time.Duration, cond func(context.Context) (bool, error)) error {
	for ctx.Err() == nil {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
	return ctx.Err()
}

// Redial dials with a net.Dialer until it connects; every attempt and every
// wait uses ctx, and a context error from the dial ends the loop.
// ok: retrycancel
func Redial(ctx context.Context, addr string, every time.Duration) (net.Conn, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := sleepCtx(ctx, every); err != nil {
			return nil, err
		}
	}
}
