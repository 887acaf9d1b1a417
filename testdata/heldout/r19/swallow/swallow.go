// Package swallow holds cancellation errors that are dropped, turned into
// nil, or logged past, so callers believe the work completed.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Registry mirror state tracker (select loop)

// ImageEvent reports an image that appeared in or left the local store.
type ImageEvent struct {
	Digest  string
	Deleted bool
}

// Router advertises content keys to peers.
type Router interface {
	Advertise(ctx context.Context, keys []string) error
	Withdraw(ctx context.Context, keys []string) error
}

// StateTracker keeps the router's advertisements in sync with local images.
type StateTracker struct {
	router  Router
	events  <-chan ImageEvent
	refresh time.Duration
	list    func(ctx context.Context) ([]string, error)
}

// advertiseAll re-advertises every local image.
//
// ok: swallowcancel
func (s *StateTracker) advertiseAll(ctx context.Context) error {
	keys, err := s.list(ctx)
	if err != nil {
		return fmt.Errorf("list images: %w", err)
	}
	if err := s.router.Advertise(ctx, keys); err != nil {
		return fmt.Errorf("advertise %d images: %w", len(keys), err)
	}
	return nil
}

// handle applies one image event to the router.
//
// ok: swallowcancel
func (s *StateTracker) handle(ctx context.Context, ev ImageEvent) error {
	if ev.Deleted {
		return s.router.Withdraw(ctx, []string{ev.Digest})
	}
	return s.router.Advertise(ctx, []string{ev.Digest})
}

// Track runs until ctx ends, advertising new images and refreshing periodically.
// From: spegel-org/spegel#989
// the ctx.Done arm returns nil, so the errgroup running the tracker sees a clean exit and callers cannot tell that tracking stopped because it was cancelled
//
// bug: swallowcancel
func (s *StateTracker) Track(ctx context.Context) error {
	if err := s.advertiseAll(ctx); err != nil {
		return err
	}
	ticker := time.NewTicker(s.refresh)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			if err := s.advertiseAll(ctx); err != nil {
				return err
			}
		case ev, ok := <-s.events:
			if !ok {
				return errors.New("image event channel closed")
			}
			if err := s.handle(ctx, ev); err != nil {
				return fmt.Errorf("image %s: %w", ev.Digest, err)
			}
		}
	}
}

// TrackNearMiss is Track returning the context error when it stops.
// From: spegel-org/spegel#989
//
// ok: swallowcancel
func (s *StateTracker) TrackNearMiss(ctx context.Context) error {
	if err := s.advertiseAll(ctx); err != nil {
		return err
	}
	ticker := time.NewTicker(s.refresh)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
			if err := s.advertiseAll(ctx); err != nil {
				return err
			}
		case ev, ok := <-s.events:
			if !ok {
				return errors.New("image event channel closed")
			}
			if err := s.handle(ctx, ev); err != nil {
				return fmt.Errorf("image %s: %w", ev.Digest, err)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Table checksum executor

// ChecksumRequest asks the storage layer for one key range's checksum.
type ChecksumRequest struct {
	Table    string
	StartKey []byte
	EndKey   []byte
}

// ChecksumResponse is the folded checksum of one or more key ranges.
type ChecksumResponse struct {
	Checksum   uint64
	TotalKvs   uint64
	TotalBytes uint64
}

// merge folds another response into r.
//
// ok: swallowcancel
func (r *ChecksumResponse) merge(o *ChecksumResponse) {
	r.Checksum ^= o.Checksum
	r.TotalKvs += o.TotalKvs
	r.TotalBytes += o.TotalBytes
}

// Coprocessor sends checksum requests to storage nodes. Once its context is
// done it stops producing responses and returns (nil, nil).
type Coprocessor interface {
	Send(ctx context.Context, req ChecksumRequest) (*ChecksumResponse, error)
}

// ChecksumExecutor computes a table checksum over a list of key ranges.
type ChecksumExecutor struct {
	client Coprocessor
	reqs   []ChecksumRequest
}

// Execute runs every range request and folds the answers together.
// From: pingcap/tidb#44583
// the coprocessor yields no response and no error after ctx is done; the loop skips those ranges and returns the partial checksum with a nil error
//
// bug: swallowcancel
func (e *ChecksumExecutor) Execute(ctx context.Context, updateFn func()) (*ChecksumResponse, error) {
	total := &ChecksumResponse{}
	for _, req := range e.reqs {
		resp, err := e.client.Send(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("checksum %s: %w", req.Table, err)
		}
		if resp == nil {
			continue
		}
		total.merge(resp)
		updateFn()
	}
	return total, nil
}

// ExecuteNearMiss is Execute checking the context before trusting the fold.
// From: pingcap/tidb#44583
//
// ok: swallowcancel
func (e *ChecksumExecutor) ExecuteNearMiss(ctx context.Context, updateFn func()) (*ChecksumResponse, error) {
	total := &ChecksumResponse{}
	for _, req := range e.reqs {
		resp, err := e.client.Send(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("checksum %s: %w", req.Table, err)
		}
		if resp == nil {
			continue
		}
		total.merge(resp)
		updateFn()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("checksum incomplete: %w", err)
	}
	return total, nil
}

// ---------------------------------------------------------------------------
// Federated crawler (worker pool)

// CrawlResult summarises a crawl.
type CrawlResult struct {
	Pages      int
	Incomplete []error
}

// Crawler fetches pages from a set of hosts with a fixed worker pool.
type Crawler struct {
	workers int
	fetch   func(ctx context.Context, host string) (int, error)
}

// crawlHosts runs the worker pool over hosts and returns what it gathered.
//
// ok: swallowcancel
func (c *Crawler) crawlHosts(ctx context.Context, hosts []string) *CrawlResult {
	queue := make(chan string)
	var (
		mu  sync.Mutex
		res CrawlResult
		wg  sync.WaitGroup
	)
	for range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for host := range queue {
				n, err := c.fetch(ctx, host)
				mu.Lock()
				if err != nil {
					res.Incomplete = append(res.Incomplete, fmt.Errorf("server %s: %w", host, err))
				} else {
					res.Pages += n
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, h := range hosts {
		select {
		case queue <- h:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	return &res
}

// Run crawls every host and returns the summary.
// From: latebit-io/demarkus#361
// a cancellation that stops the feed is only recorded in Incomplete and Run returns nil, so the caller prints and publishes a partial crawl as a success
//
// bug: swallowcancel
func (c *Crawler) Run(ctx context.Context, hosts []string) (*CrawlResult, error) {
	res := c.crawlHosts(ctx, hosts)
	if ctx.Err() != nil {
		res.Incomplete = append(res.Incomplete, fmt.Errorf("crawl interrupted: %w", ctx.Err()))
	}
	return res, nil
}

// RunNearMiss is Run returning the context error after the workers finish.
// From: latebit-io/demarkus#361
//
// ok: swallowcancel
func (c *Crawler) RunNearMiss(ctx context.Context, hosts []string) (*CrawlResult, error) {
	res := c.crawlHosts(ctx, hosts)
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("crawl interrupted: %w", err)
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// Authorization object listing (errgroup)

// ObjectLister resolves which candidate objects a user can access.
type ObjectLister struct {
	concurrency int
	check       func(ctx context.Context, object string) (bool, error)
}

// ListObjects checks every candidate concurrently and returns the allowed ones.
// From: openfga/openfga#3276
// a context.DeadlineExceeded from the pool is filtered out, so a listing cut off by the deadline is returned as the full answer with a nil error
//
// bug: swallowcancel
func (l *ObjectLister) ListObjects(ctx context.Context, candidates []string) ([]string, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(l.concurrency)
	var (
		mu  sync.Mutex
		out []string
	)
	for _, obj := range candidates {
		g.Go(func() error {
			ok, err := l.check(gctx, obj)
			if err != nil {
				return fmt.Errorf("check %s: %w", obj, err)
			}
			if ok {
				mu.Lock()
				out = append(out, obj)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return out, nil
}

// ListObjectsNearMiss is ListObjects propagating every pool error.
// From: openfga/openfga#3276
//
// ok: swallowcancel
func (l *ObjectLister) ListObjectsNearMiss(ctx context.Context, candidates []string) ([]string, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(l.concurrency)
	var (
		mu  sync.Mutex
		out []string
	)
	for _, obj := range candidates {
		g.Go(func() error {
			ok, err := l.check(gctx, obj)
			if err != nil {
				return fmt.Errorf("check %s: %w", obj, err)
			}
			if ok {
				mu.Lock()
				out = append(out, obj)
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("list objects: %w", err)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Pause iterator over two stores (range-over-func)

// Pause is a suspended workflow step waiting for an event.
type Pause struct {
	ID    string
	Event string
}

// PageFetcher returns one page of pauses and the cursor of the next page.
type PageFetcher func(ctx context.Context, cursor string) ([]Pause, string, error)

// DualIterator walks the pauses held in a primary and a secondary store.
type DualIterator struct {
	sources []PageFetcher
	err     error
}

// Err reports why the last iteration stopped early, if it did.
//
// ok: swallowcancel
func (it *DualIterator) Err() error {
	return it.err
}

// All yields every pause from both stores; callers consult Err afterwards.
// From: inngest/inngest#3501
// when ctx ends between pages the iterator just returns without recording ctx.Err(), so Err() is nil and callers treat the cut-short scan as exhausted
//
// bug: swallowcancel
func (it *DualIterator) All(ctx context.Context) iter.Seq[Pause] {
	return func(yield func(Pause) bool) {
		for _, fetch := range it.sources {
			cursor := ""
			for {
				if ctx.Err() != nil {
					return
				}
				items, next, err := fetch(ctx, cursor)
				if err != nil {
					it.err = fmt.Errorf("pause iteration: %w", err)
					return
				}
				for _, p := range items {
					if !yield(p) {
						return
					}
				}
				if next == "" {
					break
				}
				cursor = next
			}
		}
	}
}

// AllNearMiss is All recording the context error before stopping.
// From: inngest/inngest#3501
//
// ok: swallowcancel
func (it *DualIterator) AllNearMiss(ctx context.Context) iter.Seq[Pause] {
	return func(yield func(Pause) bool) {
		for _, fetch := range it.sources {
			cursor := ""
			for {
				if err := ctx.Err(); err != nil {
					it.err = fmt.Errorf("pause iteration: %w", err)
					return
				}
				items, next, err := fetch(ctx, cursor)
				if err != nil {
					it.err = fmt.Errorf("pause iteration: %w", err)
					return
				}
				for _, p := range items {
					if !yield(p) {
						return
					}
				}
				if next == "" {
					break
				}
				cursor = next
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Data transfer manager

// TransferStatus is the lifecycle state of a transfer.
type TransferStatus int

// Transfer states.
const (
	Ongoing TransferStatus = iota
	Completed
	Failed
	Cancelled
)

// Exchange pulls a DAG from a peer. Like graphsync, it returns nil when the
// request ends because its context was cancelled.
type Exchange interface {
	Fetch(ctx context.Context, peer, root string) error
}

// Transfer is one pull of a DAG rooted at Root.
type Transfer struct {
	ID   string
	Peer string
	Root string
}

// Manager tracks the state of data transfers.
type Manager struct {
	mu       sync.Mutex
	exchange Exchange
	status   map[string]TransferStatus
}

// NewManager builds a transfer manager over an exchange.
//
// ok: swallowcancel
func NewManager(ex Exchange) *Manager {
	return &Manager{exchange: ex, status: make(map[string]TransferStatus)}
}

// setStatus records a transfer's state.
//
// ok: swallowcancel
func (m *Manager) setStatus(id string, s TransferStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status[id] = s
}

// RunTransfer executes the pull for t and records its outcome.
// From: filecoin-project/go-data-transfer#134
// the exchange reports nil when the request was cancelled, so a transfer interrupted by shutdown is marked Completed and RunTransfer returns nil
//
// bug: swallowcancel
func (m *Manager) RunTransfer(ctx context.Context, t Transfer) error {
	m.setStatus(t.ID, Ongoing)
	if err := m.exchange.Fetch(ctx, t.Peer, t.Root); err != nil {
		m.setStatus(t.ID, Failed)
		return fmt.Errorf("transfer %s: %w", t.ID, err)
	}
	m.setStatus(t.ID, Completed)
	return nil
}

// RunTransferNearMiss is RunTransfer checking the request context before completing.
// From: filecoin-project/go-data-transfer#134
//
// ok: swallowcancel
func (m *Manager) RunTransferNearMiss(ctx context.Context, t Transfer) error {
	m.setStatus(t.ID, Ongoing)
	if err := m.exchange.Fetch(ctx, t.Peer, t.Root); err != nil {
		m.setStatus(t.ID, Failed)
		return fmt.Errorf("transfer %s: %w", t.ID, err)
	}
	if err := ctx.Err(); err != nil {
		m.setStatus(t.ID, Cancelled)
		return fmt.Errorf("transfer %s: %w", t.ID, err)
	}
	m.setStatus(t.ID, Completed)
	return nil
}
