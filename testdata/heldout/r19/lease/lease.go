// Package lease holds acquired resources (limiter tokens, cancel funcs,
// response bodies, transactions, leases, mutexes) that are not released on
// every path.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Bounded tuple reader (channel semaphore)

// Tuple is one relationship tuple.
type Tuple struct {
	Object, Relation, User string
}

// TupleReader reads tuples from the datastore.
type TupleReader interface {
	Read(ctx context.Context, object string) ([]Tuple, error)
}

// BoundedReader limits concurrent datastore reads and throttles when busy.
type BoundedReader struct {
	limiter           chan struct{}
	throttleThreshold int
	throttleDelay     time.Duration
	reader            TupleReader
}

// busy reports whether enough reads are in flight to throttle new ones.
//
// ok: leaseleak
func (b *BoundedReader) busy() bool {
	return len(b.limiter) >= b.throttleThreshold
}

// Read acquires a limiter slot, throttles if busy, and reads the tuples.
// From: openfga/openfga#3106
// when ctx ends during the throttle wait the function returns ctx.Err() while still holding its limiter slot, so every cancelled throttled read permanently shrinks the limiter
//
// bug: leaseleak
func (b *BoundedReader) Read(ctx context.Context, object string) ([]Tuple, error) {
	select {
	case b.limiter <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.busy() {
		t := time.NewTimer(b.throttleDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	defer func() { <-b.limiter }()
	return b.reader.Read(ctx, object)
}

// ReadNearMiss is Read releasing the slot on every path after acquiring it.
// From: openfga/openfga#3106
//
// ok: leaseleak
func (b *BoundedReader) ReadNearMiss(ctx context.Context, object string) ([]Tuple, error) {
	select {
	case b.limiter <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-b.limiter }()
	if b.busy() {
		t := time.NewTimer(b.throttleDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	return b.reader.Read(ctx, object)
}

// ---------------------------------------------------------------------------
// Config repository watcher

// Revision identifies one commit of a watched file.
type Revision int64

// ConfigClient reads revisions of files in a config repository.
type ConfigClient interface {
	Latest(ctx context.Context, path string) (Revision, error)
	WaitChange(ctx context.Context, path string, since Revision) (Revision, error)
}

// Watcher delivers new revisions of a file until Close.
type Watcher struct {
	updates chan Revision
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	err     error // set before updates is closed
}

// Err reports why the watch ended; valid once Updates is closed.
//
// ok: leaseleak
func (w *Watcher) Err() error {
	return w.err
}

// Updates returns the channel of new revisions.
//
// ok: leaseleak
func (w *Watcher) Updates() <-chan Revision {
	return w.updates
}

// Close stops the watch and waits for its goroutine.
//
// ok: leaseleak
func (w *Watcher) Close() {
	w.cancel()
	w.wg.Wait()
}

// loop long-polls for changes and forwards them.
//
// ok: leaseleak
func (w *Watcher) loop(ctx context.Context, c ConfigClient, path string, rev Revision) {
	defer w.wg.Done()
	defer close(w.updates)
	for {
		next, err := c.WaitChange(ctx, path, rev)
		if err != nil {
			w.err = fmt.Errorf("watch %s: %w", path, err)
			return
		}
		rev = next
		select {
		case w.updates <- rev:
		case <-ctx.Done():
			w.err = fmt.Errorf("watch %s: %w", path, ctx.Err())
			return
		}
	}
}

// Watch starts watching path from its latest revision.
// From: line/centraldogma-go#41
// when the initial Latest call fails the function returns without calling the watcher's cancel, so the derived context and its timer stay registered on the parent until the parent ends
//
// bug: leaseleak
func Watch(ctx context.Context, c ConfigClient, path string, timeout time.Duration) (*Watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	w := &Watcher{updates: make(chan Revision, 1), cancel: cancel}
	rev, err := c.Latest(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	w.wg.Add(1)
	go w.loop(ctx, c, path, rev)
	return w, nil
}

// WatchNearMiss is Watch cancelling the derived context when setup fails.
// From: line/centraldogma-go#41
//
// ok: leaseleak
func WatchNearMiss(ctx context.Context, c ConfigClient, path string, timeout time.Duration) (*Watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	w := &Watcher{updates: make(chan Revision, 1), cancel: cancel}
	rev, err := c.Latest(ctx, path)
	if err != nil {
		w.cancel()
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	w.wg.Add(1)
	go w.loop(ctx, c, path, rev)
	return w, nil
}

// ---------------------------------------------------------------------------
// HTTP prober

// ProbeResult is the outcome of one HTTP probe.
type ProbeResult struct {
	Status int
	Bytes  int
}

// Prober checks HTTP targets and validates their bodies.
type Prober struct {
	client   *http.Client
	validate func(body []byte) error
}

// doHTTPRequest fetches target and validates the response body.
// From: cloudprober/cloudprober#1476
// when io.ReadAll fails (reset connection, or the probe context timing out mid-body) the function returns without closing resp.Body, holding the connection out of the idle pool
//
// bug: leaseleak
func (p *Prober) doHTTPRequest(ctx context.Context, target string) (ProbeResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return ProbeResult{}, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", target, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: read body: %w", target, err)
	}
	resp.Body.Close()
	if err := p.validate(body); err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", target, err)
	}
	return ProbeResult{Status: resp.StatusCode, Bytes: len(body)}, nil
}

// doHTTPRequestNearMiss is doHTTPRequest closing the body on the read-error path too.
// From: cloudprober/cloudprober#1476
//
// ok: leaseleak
func (p *Prober) doHTTPRequestNearMiss(ctx context.Context, target string) (ProbeResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return ProbeResult{}, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", target, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		resp.Body.Close()
		return ProbeResult{}, fmt.Errorf("probe %s: read body: %w", target, err)
	}
	resp.Body.Close()
	if err := p.validate(body); err != nil {
		return ProbeResult{}, fmt.Errorf("probe %s: %w", target, err)
	}
	return ProbeResult{Status: resp.StatusCode, Bytes: len(body)}, nil
}

// ---------------------------------------------------------------------------
// Stream archiver queue (transactions in a loop)

// Stream is an upcoming live stream to archive.
type Stream struct {
	ID    string
	Title string
	Start time.Time
}

// ArchiveQueue queues upcoming streams for recording.
type ArchiveQueue struct {
	db *sql.DB
}

// QueueUpcoming inserts every stream that is not already queued.
// From: mellowagain/pomu#8
// when a stream already exists the loop continues without rolling back the transaction it began, so each skipped stream keeps a pooled connection checked out
//
// bug: leaseleak
func (q *ArchiveQueue) QueueUpcoming(ctx context.Context, streams []Stream) error {
	for _, s := range streams {
		tx, err := q.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM videos WHERE id = $1)`, s.ID).Scan(&exists); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("lookup %s: %w", s.ID, err)
		}
		if exists {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO videos (id, title, scheduled_start) VALUES ($1, $2, $3)`, s.ID, s.Title, s.Start); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("queue %s: %w", s.ID, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit %s: %w", s.ID, err)
		}
	}
	return nil
}

// QueueUpcomingNearMiss is QueueUpcoming rolling back before skipping a stream.
// From: mellowagain/pomu#8
//
// ok: leaseleak
func (q *ArchiveQueue) QueueUpcomingNearMiss(ctx context.Context, streams []Stream) error {
	for _, s := range streams {
		tx, err := q.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM videos WHERE id = $1)`, s.ID).Scan(&exists); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("lookup %s: %w", s.ID, err)
		}
		if exists {
			_ = tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO videos (id, title, scheduled_start) VALUES ($1, $2, $3)`, s.ID, s.Title, s.Start); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("queue %s: %w", s.ID, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit %s: %w", s.ID, err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Volume write-lease coordinator

// Coordinator hands out exclusive write leases per scope.
type Coordinator struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when the scope's lease is released
}

// NewCoordinator builds an empty coordinator.
//
// ok: leaseleak
func NewCoordinator() *Coordinator {
	return &Coordinator{held: make(map[string]chan struct{})}
}

// WriteLease is an exclusive write lease on one scope.
type WriteLease struct {
	c     *Coordinator
	scope string
	once  sync.Once
}

// AcquireWriteLease waits until scope is free or ctx ends.
//
// ok: leaseleak
func (c *Coordinator) AcquireWriteLease(ctx context.Context, scope string) (*WriteLease, error) {
	for {
		c.mu.Lock()
		ch, busy := c.held[scope]
		if !busy {
			c.held[scope] = make(chan struct{})
			c.mu.Unlock()
			return &WriteLease{c: c, scope: scope}, nil
		}
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("acquire write lease %s: %w", scope, ctx.Err())
		}
	}
}

// release frees scope and wakes waiters.
//
// ok: leaseleak
func (c *Coordinator) release(scope string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.held[scope]; ok {
		delete(c.held, scope)
		close(ch)
	}
}

// Release gives the lease back to the coordinator.
// From: s4wave/spacewave#355
// Release returns ctx.Err() before touching any state, so a commit that releases with its already-cancelled context leaves the scope locked forever and later writers block in AcquireWriteLease
//
// bug: leaseleak
func (l *WriteLease) Release(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("release write lease %s: %w", l.scope, err)
	}
	l.once.Do(func() { l.c.release(l.scope) })
	return nil
}

// ReleaseNearMiss is Release treating the hand-back as non-cancellable.
// From: s4wave/spacewave#355
//
// ok: leaseleak
func (l *WriteLease) ReleaseNearMiss(_ context.Context) error {
	l.once.Do(func() { l.c.release(l.scope) })
	return nil
}

// ---------------------------------------------------------------------------
// Watch progress requests

// progressRequest asks a watch stream to report its current revision.
type progressRequest struct{}

// watchStream is one multiplexed watch gRPC stream.
type watchStream struct {
	reqc chan *progressRequest
}

// streamKey selects the watch stream a context belongs to.
type streamKey struct{}

// streamKeyFromCtx returns the stream key carried by ctx.
//
// ok: leaseleak
func streamKeyFromCtx(ctx context.Context) string {
	if k, ok := ctx.Value(streamKey{}).(string); ok {
		return k
	}
	return ""
}

// WatchClient multiplexes watches over per-context streams.
type WatchClient struct {
	mu      sync.Mutex
	streams map[string]*watchStream
}

// errNoStream is returned when no watch stream matches the context.
var errNoStream = errors.New("no stream found for context")

// RequestProgress asks the context's watch stream to send a progress notification.
// From: etcd-io/etcd#10863
// the streams == nil branch returns with w.mu still locked, so every later watch or progress call on the client blocks forever
//
// bug: leaseleak
func (w *WatchClient) RequestProgress(ctx context.Context) error {
	key := streamKeyFromCtx(ctx)
	w.mu.Lock()
	if w.streams == nil {
		return fmt.Errorf("request progress: %w", errNoStream)
	}
	ws := w.streams[key]
	w.mu.Unlock()
	if ws == nil {
		return fmt.Errorf("request progress: %w", errNoStream)
	}
	select {
	case ws.reqc <- &progressRequest{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RequestProgressNearMiss is RequestProgress unlocking before the early return.
// From: etcd-io/etcd#10863
//
// ok: leaseleak
func (w *WatchClient) RequestProgressNearMiss(ctx context.Context) error {
	key := streamKeyFromCtx(ctx)
	w.mu.Lock()
	if w.streams == nil {
		w.mu.Unlock()
		return fmt.Errorf("request progress: %w", errNoStream)
	}
	ws := w.streams[key]
	w.mu.Unlock()
	if ws == nil {
		return fmt.Errorf("request progress: %w", errNoStream)
	}
	select {
	case ws.reqc <- &progressRequest{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
