// Package untracked holds go statements that are, or are not, joined or
// bounded by their owner.
package untracked

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// A TTL cache with per-entry expiry.

type entry[V any] struct {
	val     V
	expires time.Time
}

// Cache is a map whose entries expire.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	items map[K]*entry[V]
}

// NewCache returns an empty cache.
// ok: untrackedgo
func NewCache[K comparable, V any]() *Cache[K, V] {
	return &Cache[K, V]{items: make(map[K]*entry[V])}
}

// expire deletes k if it still holds e.
// ok: untrackedgo
func (c *Cache[K, V]) expire(k K, e *entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items[k] == e {
		delete(c.items, k)
	}
}

// Get returns the value for k if present.
// ok: untrackedgo
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	return e.val, true
}

// Set stores v for ttl. Each call starts a goroutine that sleeps out the
// TTL and then deletes the entry; nothing can stop or wait for these, so a
// cache that is dropped (or a test that finishes) leaves one sleeping
// goroutine per entry, each holding the cache alive for up to ttl.
// From: microsoftarchive/ttlcache#2
// bug: untrackedgo
func (c *Cache[K, V]) Set(k K, v V, ttl time.Duration) {
	e := &entry[V]{val: v, expires: time.Now().Add(ttl)}
	c.mu.Lock()
	c.items[k] = e
	c.mu.Unlock()
	go func() {
		time.Sleep(ttl)
		c.expire(k, e)
	}()
}

// StoppableCache is the same cache with a Close that ends expiry goroutines.
type StoppableCache[K comparable, V any] struct {
	mu     sync.Mutex
	items  map[K]*entry[V]
	closed bool
	done   chan struct{}
	wg     sync.WaitGroup
}

// NewStoppableCache returns an empty cache; call Close when done.
// ok: untrackedgo
func NewStoppableCache[K comparable, V any]() *StoppableCache[K, V] {
	return &StoppableCache[K, V]{items: make(map[K]*entry[V]), done: make(chan struct{})}
}

// expire deletes k if it still holds e.
// ok: untrackedgo
func (c *StoppableCache[K, V]) expire(k K, e *entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items[k] == e {
		delete(c.items, k)
	}
}

// SetNearMiss starts the expiry goroutine under the cache's WaitGroup and
// lets it stop early on Close.
// ok: untrackedgo
func (c *StoppableCache[K, V]) SetNearMiss(k K, v V, ttl time.Duration) {
	e := &entry[V]{val: v, expires: time.Now().Add(ttl)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.items[k] = e
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTimer(ttl)
		defer t.Stop()
		select {
		case <-t.C:
			c.expire(k, e)
		case <-c.done:
		}
	}()
}

// Close stops all expiry goroutines and waits for them.
// ok: untrackedgo
func (c *StoppableCache[K, V]) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	close(c.done)
	c.mu.Unlock()
	c.wg.Wait()
}

// ---------------------------------------------------------------------------
// Feeding an index from a record source.

// Record is an input record.
type Record struct {
	Key  string
	Body []byte
}

// RecordSource yields records, or an error that ends the stream.
type RecordSource interface {
	Records(ctx context.Context) iter.Seq2[Record, error]
}

// Indexer builds an in-memory index.
type Indexer struct {
	mu    sync.Mutex
	index map[string][]byte
}

// add indexes one record.
// ok: untrackedgo
func (ix *Indexer) add(r Record) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.index[r.Key] = r.Body
}

// Ingest indexes every record through a background adder. On a source error
// it returns without closing records, so the adder blocks in range forever;
// on success it closes the channel but does not wait, so Ingest returns
// while records are still being added.
// From: buildkite/bintest#10
// bug: untrackedgo
func (ix *Indexer) Ingest(ctx context.Context, src RecordSource) error {
	records := make(chan Record, 64)
	go func() {
		for r := range records {
			ix.add(r)
		}
	}()
	for rec, err := range src.Records(ctx) {
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		records <- rec
	}
	close(records)
	return nil
}

// IngestNearMiss closes the channel and waits for the adder on every path.
// ok: untrackedgo
func (ix *Indexer) IngestNearMiss(ctx context.Context, src RecordSource) error {
	records := make(chan Record, 64)
	var wg sync.WaitGroup
	wg.Go(func() {
		for r := range records {
			ix.add(r)
		}
	})
	defer wg.Wait()
	defer close(records)
	for rec, err := range src.Records(ctx) {
		if err != nil {
			return fmt.Errorf("ingest: %w", err)
		}
		records <- rec
	}
	return nil
}

// ---------------------------------------------------------------------------
// Merging two stop signals.

// AnyDone returns a channel that is closed when a or b is closed. The
// goroutine waits for one of them; when a breaker built from two long-lived
// signals is discarded without either firing, it stays parked for the life
// of the process.
// From: octolab/breaker#16
// bug: untrackedgo
func AnyDone(a, b <-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		defer close(out)
		select {
		case <-a:
		case <-b:
		}
	}()
	return out
}

// AnyDoneNearMiss also returns a release func; calling it ends the goroutine
// and waits for it, so a discarded merge does not linger.
// ok: untrackedgo
func AnyDoneNearMiss(a, b <-chan struct{}) (<-chan struct{}, func()) {
	out := make(chan struct{})
	quit := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		defer close(out)
		select {
		case <-a:
		case <-b:
		case <-quit:
		}
	}()
	var once sync.Once
	release := func() {
		once.Do(func() { close(quit) })
		<-exited
	}
	return out, release
}

// ---------------------------------------------------------------------------
// A scripted mock peer for protocol tests.

// Exchange is one scripted request/response.
type Exchange struct {
	Expect []byte
	Reply  []byte
}

// MockPeer answers a connection from a script.
type MockPeer struct {
	conn   net.Conn
	script []Exchange

	mu  sync.Mutex
	err error
}

// respond plays the script until it ends or the connection fails.
// ok: untrackedgo
func (m *MockPeer) respond() {
	for _, ex := range m.script {
		buf := make([]byte, len(ex.Expect))
		if _, err := io.ReadFull(m.conn, buf); err != nil {
			m.setErr(err)
			return
		}
		if string(buf) != string(ex.Expect) {
			m.setErr(fmt.Errorf("mock: got %q, want %q", buf, ex.Expect))
			return
		}
		if _, err := m.conn.Write(ex.Reply); err != nil {
			m.setErr(err)
			return
		}
	}
}

// setErr records the first script failure.
// ok: untrackedgo
func (m *MockPeer) setErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// Err returns the first script failure.
// ok: untrackedgo
func (m *MockPeer) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Serve plays the script until ctx ends, then closes the connection. It
// returns right after Close without waiting for the responder, which is
// still unwinding (and may still record an error) when the test checks
// Err and the leak detector runs.
// From: blinklabs-io/gouroboros#533
// bug: untrackedgo
func (m *MockPeer) Serve(ctx context.Context) error {
	go m.respond()
	<-ctx.Done()
	return m.conn.Close()
}

// ServeNearMiss waits for the responder after closing the connection.
// ok: untrackedgo
func (m *MockPeer) ServeNearMiss(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.respond()
	}()
	select {
	case <-ctx.Done():
	case <-done:
	}
	err := m.conn.Close()
	<-done
	return err
}

// ---------------------------------------------------------------------------
// A block chain that persists blocks asynchronously.

// Block is a chain block.
type Block struct {
	Number uint64
	Data   []byte
}

// KV is the chain database; Close invalidates it.
type KV interface {
	Put(key string, val []byte) error
	Close() error
}

// Chain tracks the head and persists blocks.
type Chain struct {
	db   KV
	mu   sync.Mutex
	head *Block
	errs []error
	wg   sync.WaitGroup
}

// persist writes one block, recording a failure.
// ok: untrackedgo
func (c *Chain) persist(b *Block) {
	if err := c.db.Put(fmt.Sprintf("block/%d", b.Number), b.Data); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, err)
		c.mu.Unlock()
	}
}

// setHead advances the head.
// ok: untrackedgo
func (c *Chain) setHead(b *Block) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.head = b
}

// errInvalid reports a block out of sequence.
var errInvalid = errors.New("chain: block out of sequence")

// InsertChain advances the head and persists each block in the background.
// The persist goroutines are not counted in c.wg, so Stop's Wait does not
// cover them and the database is closed under writes still in flight.
// From: autonity/autonity#668
// bug: untrackedgo
func (c *Chain) InsertChain(blocks []*Block) error {
	for _, b := range blocks {
		c.mu.Lock()
		ok := c.head == nil || b.Number == c.head.Number+1
		c.mu.Unlock()
		if !ok {
			return errInvalid
		}
		c.setHead(b)
		go c.persist(b)
	}
	return nil
}

// InsertChainNearMiss registers every persist goroutine with c.wg.
// ok: untrackedgo
func (c *Chain) InsertChainNearMiss(blocks []*Block) error {
	for _, b := range blocks {
		c.mu.Lock()
		ok := c.head == nil || b.Number == c.head.Number+1
		c.mu.Unlock()
		if !ok {
			return errInvalid
		}
		c.setHead(b)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.persist(b)
		}()
	}
	return nil
}

// Stop waits for tracked writers and closes the database.
// ok: untrackedgo
func (c *Chain) Stop() error {
	c.wg.Wait()
	return c.db.Close()
}

// ---------------------------------------------------------------------------
// Flushing webhooks through a worker pool.

// Hook is a pending webhook delivery.
type Hook struct {
	URL     string
	Payload []byte
}

// Dispatcher delivers webhooks.
type Dispatcher struct {
	workers    int
	deliver    func(ctx context.Context, h Hook) error
	deadLetter func(h Hook, err error)
}

// Flush hands every hook to a pool of workers. It closes the job channel
// and returns as soon as the last hook is handed out, without waiting for
// the workers; the caller marks the batch flushed and shuts the HTTP client
// down while deliveries are still in progress.
// From: gammazero/workerpool#52
// bug: untrackedgo
func (d *Dispatcher) Flush(ctx context.Context, hooks []Hook) error {
	jobs := make(chan Hook)
	for range d.workers {
		go func() {
			for h := range jobs {
				if err := d.deliver(ctx, h); err != nil {
					d.deadLetter(h, err)
				}
			}
		}()
	}
	defer close(jobs)
	for _, h := range hooks {
		select {
		case jobs <- h:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// FlushNearMiss waits for the workers after closing the job channel.
// ok: untrackedgo
func (d *Dispatcher) FlushNearMiss(ctx context.Context, hooks []Hook) error {
	jobs := make(chan Hook)
	var wg sync.WaitGroup
	for range d.workers {
		wg.Go(func() {
			for h := range jobs {
				if err := d.deliver(ctx, h); err != nil {
					d.deadLetter(h, err)
				}
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for _, h := range hooks {
		select {
		case jobs <- h:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// A storage layer that refreshes usage statistics.

// UsageStore refreshes its usage counters periodically.
type UsageStore struct {
	every   time.Duration
	refresh func()
	quit    chan struct{}
	wg      sync.WaitGroup
}

// Start begins periodic refreshes. The loop only waits on the ticker, so
// Stop's close(quit) never reaches it and the refresher keeps running
// against a store that has been shut down.
// From: buildbuddy-io/buildbuddy#5498
// bug: untrackedgo
func (s *UsageStore) Start() {
	go func() {
		t := time.NewTicker(s.every)
		defer t.Stop()
		for range t.C {
			s.refresh()
		}
	}()
}

// StartNearMiss exits on quit and is tracked by s.wg.
// ok: untrackedgo
func (s *UsageStore) StartNearMiss() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.every)
		defer t.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-t.C:
				s.refresh()
			}
		}
	}()
}

// Stop signals the refresher and waits for it.
// ok: untrackedgo
func (s *UsageStore) Stop() {
	close(s.quit)
	s.wg.Wait()
}

// ---------------------------------------------------------------------------
// Correct functions that only look like they leak goroutines.

// Entry is a file found by Walk.
type Entry struct {
	Path string
	Size int64
}

// Walk lists regular files under root on a channel. The goroutine closes the
// entry channel when it is done, stops as soon as ctx ends, and then sends
// the walk's error (nil, or the context error) on the buffered error
// channel; the caller drains entries and then reads the error, which is what
// joins it.
// ok: untrackedgo
func Walk(ctx context.Context, root string) (<-chan Entry, <-chan error) {
	out := make(chan Entry)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(out)
		errc <- filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			select {
			case out <- Entry{Path: path, Size: info.Size()}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return out, errc
}

// TotalSize drains Walk and then collects its error.
// ok: untrackedgo
func TotalSize(ctx context.Context, root string) (int64, error) {
	entries, errc := Walk(ctx, root)
	var total int64
	for e := range entries {
		total += e.Size
	}
	if err := <-errc; err != nil {
		return total, fmt.Errorf("walk %s: %w", root, err)
	}
	return total, nil
}

// FetchAll runs fetch for every key with at most limit in flight and waits
// for all of them before returning.
// ok: untrackedgo
func FetchAll(ctx context.Context, keys []string, limit int, fetch func(context.Context, string) ([]byte, error)) (map[string][]byte, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	var mu sync.Mutex
	out := make(map[string][]byte, len(keys))
	for _, k := range keys {
		g.Go(func() error {
			b, err := fetch(gctx, k)
			if err != nil {
				return fmt.Errorf("fetch %s: %w", k, err)
			}
			mu.Lock()
			out[k] = b
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Agent runs a background sync loop for its lifetime.
type Agent struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sync   func(ctx context.Context)
}

// NewAgent starts the sync loop under a context the agent owns; Close
// cancels it and waits.
// ok: untrackedgo
func NewAgent(parent context.Context, every time.Duration, sync func(ctx context.Context)) *Agent {
	ctx, cancel := context.WithCancel(parent)
	a := &Agent{cancel: cancel, sync: sync}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.sync(ctx)
			}
		}
	}()
	return a
}

// Close stops the sync loop and waits for it to exit.
// ok: untrackedgo
func (a *Agent) Close() {
	a.cancel()
	a.wg.Wait()
}
