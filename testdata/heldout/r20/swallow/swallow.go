// Package swallow holds cases where an error that can carry context.Canceled
// is dropped, turned into nil, or logged and continued past.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log"
	"sync"
)

// ---------------------------------------------------------------------------
// JSON-RPC looping transport (INFURA/go-ethlibs#32)

// Response is one JSON-RPC reply.
type Response struct {
	ID     int
	Result []byte
	Error  string
}

type pending struct {
	method string
	params []any
	reply  chan Response
}

// LoopingTransport multiplexes requests over one connection owned by a
// background loop whose lifetime is t.ctx.
type LoopingTransport struct {
	ctx      context.Context
	requests chan *pending
}

// NewLoopingTransport wires a transport to the loop context that owns it.
//
// ok: swallowcancel
func NewLoopingTransport(loopCtx context.Context, requests chan *pending) *LoopingTransport {
	return &LoopingTransport{ctx: loopCtx, requests: requests}
}

// Request queues a call and waits for its reply.
// From: INFURA/go-ethlibs#32
// when only the transport's own context is done, the arm returns the caller's
// ctx.Err(), which is still nil, so Request returns (nil, nil) as if it succeeded
//
// bug: swallowcancel
func (t *LoopingTransport) Request(ctx context.Context, method string, params ...any) (*Response, error) {
	p := &pending{method: method, params: params, reply: make(chan Response, 1)}
	select {
	case t.requests <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-p.reply:
		return &r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, ctx.Err()
	}
}

// RequestNearMiss is Request returning the error of the context that fired.
// From: INFURA/go-ethlibs#32
//
// ok: swallowcancel
func (t *LoopingTransport) RequestNearMiss(ctx context.Context, method string, params ...any) (*Response, error) {
	p := &pending{method: method, params: params, reply: make(chan Response, 1)}
	select {
	case t.requests <- p:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, fmt.Errorf("transport closed: %w", t.ctx.Err())
	}
	select {
	case r := <-p.reply:
		return &r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.ctx.Done():
		return nil, fmt.Errorf("transport closed: %w", t.ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Project settings lookup (evergreen-ci/evergreen#6822)

// ProjectSettings is the stored per-project configuration.
type ProjectSettings struct {
	Banner      string
	BannerTheme string
}

// SettingsStore loads settings from the database.
type SettingsStore interface {
	FindSettings(ctx context.Context, projectID string) (*ProjectSettings, error)
}

// SettingsService answers UI queries about project settings.
type SettingsService struct {
	store SettingsStore
	log   *log.Logger
}

// NewSettingsService builds the service.
//
// ok: swallowcancel
func NewSettingsService(store SettingsStore, logger *log.Logger) *SettingsService {
	return &SettingsService{store: store, log: logger}
}

// ProjectBanner returns the banner text to show for a project.
// From: evergreen-ci/evergreen#6822
// when the request is cancelled FindSettings fails with context.Canceled; the
// error is only logged and an empty banner is returned with a nil error
//
// bug: swallowcancel
func (s *SettingsService) ProjectBanner(ctx context.Context, projectID string) (string, string, error) {
	settings, err := s.store.FindSettings(ctx, projectID)
	if err != nil {
		s.log.Printf("finding settings for project %q: %v", projectID, err)
	}
	if settings == nil {
		settings = &ProjectSettings{}
	}
	return settings.Banner, settings.BannerTheme, nil
}

// ProjectBannerNearMiss returns the lookup error to the caller.
// From: evergreen-ci/evergreen#6822
//
// ok: swallowcancel
func (s *SettingsService) ProjectBannerNearMiss(ctx context.Context, projectID string) (string, string, error) {
	settings, err := s.store.FindSettings(ctx, projectID)
	if err != nil {
		return "", "", fmt.Errorf("finding settings for project %q: %w", projectID, err)
	}
	if settings == nil {
		settings = &ProjectSettings{}
	}
	return settings.Banner, settings.BannerTheme, nil
}

// ---------------------------------------------------------------------------
// Health prober (ssvlabs/ssv#2880)

// Component is something that can be probed for health.
type Component interface {
	Name() string
	Probe(ctx context.Context) error
}

// Prober probes all components in parallel.
type Prober struct {
	components []Component
}

// NewProber builds a prober.
//
// ok: swallowcancel
func NewProber(components ...Component) *Prober {
	return &Prober{components: components}
}

// probeAll probes every component and cancels the rest on the first failure.
// The returned error joins every component error, including the
// context.Canceled of siblings cut short by that early cancel.
//
// ok: swallowcancel
func (p *Prober) probeAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, c := range p.components {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Probe(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", c.Name(), err))
				mu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Healthy reports whether every component is healthy.
// From: ssvlabs/ssv#2880
// a joined error matches context.Canceled whenever a sibling was cut short, so
// a genuine component failure is reported as a clean nil result
//
// bug: swallowcancel
func (p *Prober) Healthy(ctx context.Context) error {
	err := p.probeAll(ctx)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// HealthyNearMiss passes the joined error through unchanged.
// From: ssvlabs/ssv#2880
//
// ok: swallowcancel
func (p *Prober) HealthyNearMiss(ctx context.Context) error {
	if err := p.probeAll(ctx); err != nil {
		return fmt.Errorf("health probe: %w", err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Batch cache (viccon/sturdyc#38)

// Record is one cached row.
type Record struct {
	ID    string
	Value []byte
}

// BatchFetcher loads records that are not in the cache.
type BatchFetcher func(ctx context.Context, ids []string) (map[string]Record, error)

// BatchCache caches records by ID.
type BatchCache struct {
	mu      sync.RWMutex
	entries map[string]Record
	fetch   BatchFetcher
}

// NewBatchCache builds an empty cache.
//
// ok: swallowcancel
func NewBatchCache(fetch BatchFetcher) *BatchCache {
	return &BatchCache{entries: make(map[string]Record), fetch: fetch}
}

// lookup splits ids into cached records and missing IDs.
//
// ok: swallowcancel
func (c *BatchCache) lookup(ids []string) (map[string]Record, []string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	found := make(map[string]Record, len(ids))
	var missing []string
	for _, id := range ids {
		if r, ok := c.entries[id]; ok {
			found[id] = r
		} else {
			missing = append(missing, id)
		}
	}
	return found, missing
}

// store adds freshly fetched records to the cache.
//
// ok: swallowcancel
func (c *BatchCache) store(recs map[string]Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, r := range recs {
		c.entries[id] = r
	}
}

// GetMany returns the records for ids, fetching the missing ones.
// From: viccon/sturdyc#38
// when the fetch fails because ctx was cancelled and some IDs were cached,
// the cached subset is returned with a nil error as if the batch were complete
//
// bug: swallowcancel
func (c *BatchCache) GetMany(ctx context.Context, ids []string) (map[string]Record, error) {
	found, missing := c.lookup(ids)
	if len(missing) == 0 {
		return found, nil
	}
	fetched, err := c.fetch(ctx, missing)
	if err != nil {
		if len(found) > 0 {
			return found, nil
		}
		return nil, err
	}
	c.store(fetched)
	for id, r := range fetched {
		found[id] = r
	}
	return found, nil
}

// GetManyNearMiss returns the cached subset together with the fetch error.
// From: viccon/sturdyc#38
//
// ok: swallowcancel
func (c *BatchCache) GetManyNearMiss(ctx context.Context, ids []string) (map[string]Record, error) {
	found, missing := c.lookup(ids)
	if len(missing) == 0 {
		return found, nil
	}
	fetched, err := c.fetch(ctx, missing)
	if err != nil {
		return found, fmt.Errorf("fetching %d records: %w", len(missing), err)
	}
	c.store(fetched)
	for id, r := range fetched {
		found[id] = r
	}
	return found, nil
}

// ---------------------------------------------------------------------------
// Task runner (matrixorigin/matrixone#7907)

// ErrStepSkipped means a step decided it had nothing to do.
var ErrStepSkipped = errors.New("step skipped")

// Step is one unit of a task.
type Step interface {
	Name() string
	Run(ctx context.Context) error
}

// Task is an ordered list of steps.
type Task struct {
	ID    string
	Steps []Step
}

// TaskRunner executes tasks.
type TaskRunner struct {
	log *log.Logger
}

// NewTaskRunner builds a runner.
//
// ok: swallowcancel
func NewTaskRunner(logger *log.Logger) *TaskRunner {
	return &TaskRunner{log: logger}
}

// RunTask executes every step of t in order.
// From: matrixorigin/matrixone#7907
// a step that fails with context.Canceled falls into the default arm, which
// only logs it; the loop runs on and RunTask returns nil as if the task finished
//
// bug: swallowcancel
func (r *TaskRunner) RunTask(ctx context.Context, t *Task) error {
	for i, step := range t.Steps {
		err := step.Run(ctx)
		switch {
		case err == nil:
		case errors.Is(err, ErrStepSkipped):
			r.log.Printf("task %s: step %d (%s) skipped", t.ID, i, step.Name())
		default:
			r.log.Printf("task %s: step %d (%s) failed: %v", t.ID, i, step.Name(), err)
		}
	}
	return nil
}

// RunTaskNearMiss stops at the first failing step and returns its error.
// From: matrixorigin/matrixone#7907
//
// ok: swallowcancel
func (r *TaskRunner) RunTaskNearMiss(ctx context.Context, t *Task) error {
	for i, step := range t.Steps {
		err := step.Run(ctx)
		switch {
		case err == nil:
		case errors.Is(err, ErrStepSkipped):
			r.log.Printf("task %s: step %d (%s) skipped", t.ID, i, step.Name())
		default:
			return fmt.Errorf("task %s: step %d (%s): %w", t.ID, i, step.Name(), err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Paginated stream listing (nats-io/nats.net#1214)

// StreamInfo describes one stream.
type StreamInfo struct {
	Name     string
	Subjects []string
}

// streamPage is one page of the list API.
type streamPage struct {
	Streams []StreamInfo
	Total   int
}

// PageLister fetches one page starting at offset.
type PageLister func(ctx context.Context, offset int) (streamPage, error)

// StreamClient lists streams page by page.
type StreamClient struct {
	listPage PageLister
}

// NewStreamClient builds a client.
//
// ok: swallowcancel
func NewStreamClient(lister PageLister) *StreamClient {
	return &StreamClient{listPage: lister}
}

// Streams yields every stream, fetching pages lazily.
// From: nats-io/nats.net#1214
// the context is only used as the loop guard, so a cancel between pages ends
// the sequence silently and the caller cannot tell a truncated list from a full one
//
// bug: swallowcancel
func (c *StreamClient) Streams(ctx context.Context) iter.Seq2[StreamInfo, error] {
	return func(yield func(StreamInfo, error) bool) {
		offset := 0
		for ctx.Err() == nil {
			page, err := c.listPage(ctx, offset)
			if err != nil {
				yield(StreamInfo{}, err)
				return
			}
			for _, s := range page.Streams {
				if !yield(s, nil) {
					return
				}
			}
			offset += len(page.Streams)
			if len(page.Streams) == 0 || offset >= page.Total {
				return
			}
		}
	}
}

// StreamsNearMiss yields ctx.Err() when cancelled between pages.
// From: nats-io/nats.net#1214
//
// ok: swallowcancel
func (c *StreamClient) StreamsNearMiss(ctx context.Context) iter.Seq2[StreamInfo, error] {
	return func(yield func(StreamInfo, error) bool) {
		offset := 0
		for {
			if err := ctx.Err(); err != nil {
				yield(StreamInfo{}, err)
				return
			}
			page, err := c.listPage(ctx, offset)
			if err != nil {
				yield(StreamInfo{}, err)
				return
			}
			for _, s := range page.Streams {
				if !yield(s, nil) {
					return
				}
			}
			offset += len(page.Streams)
			if len(page.Streams) == 0 || offset >= page.Total {
				return
			}
		}
	}
}

// CollectStreams drains a stream sequence into a slice, stopping at the
// first error.
//
// ok: swallowcancel
func CollectStreams(seq iter.Seq2[StreamInfo, error]) ([]StreamInfo, error) {
	var out []StreamInfo
	for s, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}
