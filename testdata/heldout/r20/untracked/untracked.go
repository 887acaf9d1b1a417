// Package untracked holds go statements that nothing joins, so work outlives
// the Close/Stop/Shutdown of its owner.
package untracked

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Kinesis-style consumer worker (vmware-archive/vmware-go-kcl#57)

// Record is one stream record.
type Record struct {
	Shard string
	Data  []byte
}

// RecordProcessor handles batches of records for a shard.
type RecordProcessor interface {
	ProcessRecords(ctx context.Context, shard string, recs []Record) error
}

// ShardReader reads the next batch from a shard.
type ShardReader func(ctx context.Context, shard string) ([]Record, error)

// ConsumerWorker consumes every shard in its own goroutine.
type ConsumerWorker struct {
	shards    []string
	read      ShardReader
	processor RecordProcessor
	log       *log.Logger

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewConsumerWorker builds a worker.
//
// ok: untrackedgo
func NewConsumerWorker(shards []string, read ShardReader, p RecordProcessor, logger *log.Logger) *ConsumerWorker {
	return &ConsumerWorker{shards: shards, read: read, processor: p, log: logger}
}

// Start launches one consumer per shard.
//
// ok: untrackedgo
func (w *ConsumerWorker) Start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	for _, shard := range w.shards {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.consumeShard(ctx, shard)
		}()
	}
}

// consumeShard reads and processes one shard until ctx ends.
//
// ok: untrackedgo
func (w *ConsumerWorker) consumeShard(ctx context.Context, shard string) {
	for ctx.Err() == nil {
		recs, err := w.read(ctx, shard)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Printf("shard %s: read: %v", shard, err)
			}
			return
		}
		if err := w.processor.ProcessRecords(ctx, shard, recs); err != nil {
			w.log.Printf("shard %s: process: %v", shard, err)
			return
		}
	}
}

// Shutdown stops the worker.
// From: vmware-archive/vmware-go-kcl#57
// Shutdown cancels the shard consumers but returns without waiting for them,
// so ProcessRecords can still be running after Shutdown has returned
//
// bug: untrackedgo
func (w *ConsumerWorker) Shutdown() {
	if w.cancel != nil {
		w.cancel()
	}
}

// ShutdownNearMiss cancels the consumers and waits for them to exit.
// From: vmware-archive/vmware-go-kcl#57
//
// ok: untrackedgo
func (w *ConsumerWorker) ShutdownNearMiss() {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
}

// ---------------------------------------------------------------------------
// Server-sent events (antage/eventsource#17)

// consumer is one connected SSE client.
type consumer struct {
	w      io.Writer
	events chan []byte
}

// writeLoop copies events to the client until its channel closes.
//
// ok: untrackedgo
func (c *consumer) writeLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-c.events:
			if !ok {
				return
			}
			if _, err := c.w.Write(ev); err != nil {
				return
			}
		}
	}
}

// EventSource broadcasts events to consumers.
type EventSource struct {
	mu        sync.Mutex
	consumers []*consumer
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// NewEventSource builds a source whose consumers live until Close.
//
// ok: untrackedgo
func NewEventSource(ctx context.Context) *EventSource {
	ctx, cancel := context.WithCancel(ctx)
	return &EventSource{ctx: ctx, cancel: cancel}
}

// AddConsumer registers a client and starts its writer.
// From: antage/eventsource#17
// the writer goroutine is not added to es.wg, so Close returns while writers
// may still be writing to the client connection
//
// bug: untrackedgo
func (es *EventSource) AddConsumer(w io.Writer) {
	c := &consumer{w: w, events: make(chan []byte, 16)}
	es.mu.Lock()
	es.consumers = append(es.consumers, c)
	es.mu.Unlock()
	go c.writeLoop(es.ctx)
}

// AddConsumerNearMiss tracks the writer in es.wg.
// From: antage/eventsource#17
//
// ok: untrackedgo
func (es *EventSource) AddConsumerNearMiss(w io.Writer) {
	c := &consumer{w: w, events: make(chan []byte, 16)}
	es.mu.Lock()
	es.consumers = append(es.consumers, c)
	es.mu.Unlock()
	es.wg.Add(1)
	go func() {
		defer es.wg.Done()
		c.writeLoop(es.ctx)
	}()
}

// Broadcast queues ev for every consumer, dropping it for slow ones.
//
// ok: untrackedgo
func (es *EventSource) Broadcast(ev []byte) {
	es.mu.Lock()
	defer es.mu.Unlock()
	for _, c := range es.consumers {
		select {
		case c.events <- ev:
		default:
		}
	}
}

// Close stops every writer and waits for the tracked ones.
//
// ok: untrackedgo
func (es *EventSource) Close() {
	es.cancel()
	es.wg.Wait()
}

// ---------------------------------------------------------------------------
// Sampling gRPC-style server (open-telemetry/opentelemetry-collector-contrib#31157)

// rpcServer is the subset of a gRPC server used here.
type rpcServer interface {
	GracefulStop()
	Stop()
}

// SamplingServer serves sampling strategies.
type SamplingServer struct {
	server     rpcServer
	forceAfter time.Duration
}

// NewSamplingServer builds a server.
//
// ok: untrackedgo
func NewSamplingServer(srv rpcServer, forceAfter time.Duration) *SamplingServer {
	return &SamplingServer{server: srv, forceAfter: forceAfter}
}

// Shutdown stops the server gracefully, forcing it after forceAfter.
// From: open-telemetry/opentelemetry-collector-contrib#31157
// the force-stop goroutine sleeps for the full forceAfter; when the graceful
// stop finishes first, Shutdown returns and that goroutine is left running
//
// bug: untrackedgo
func (s *SamplingServer) Shutdown(ctx context.Context) error {
	go func() {
		time.Sleep(s.forceAfter)
		s.server.Stop()
	}()
	s.server.GracefulStop()
	return ctx.Err()
}

// ShutdownNearMiss runs the graceful stop in a goroutine it waits for.
// From: open-telemetry/opentelemetry-collector-contrib#31157
//
// ok: untrackedgo
func (s *SamplingServer) ShutdownNearMiss(ctx context.Context) error {
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.server.GracefulStop()
	}()
	t := time.NewTimer(s.forceAfter)
	defer t.Stop()
	select {
	case <-stopped:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	s.server.Stop()
	<-stopped
	return ctx.Err()
}

// ---------------------------------------------------------------------------
// Knowledge reloader (GizClaw/flowcraft#159)

// RebuildTarget rebuilds an index for a set of scopes.
type RebuildTarget interface {
	Rebuild(ctx context.Context, scopes []string) error
}

// EventReloader debounces change events into index rebuilds.
type EventReloader struct {
	target   RebuildTarget
	debounce time.Duration
	timeout  time.Duration
	events   chan string
	stop     chan struct{}

	mu      sync.Mutex
	pending map[string]struct{}
	wg      sync.WaitGroup
}

// NewEventReloader builds a reloader.
//
// ok: untrackedgo
func NewEventReloader(target RebuildTarget, debounce, timeout time.Duration) *EventReloader {
	return &EventReloader{
		target:   target,
		debounce: debounce,
		timeout:  timeout,
		events:   make(chan string, 128),
		stop:     make(chan struct{}),
		pending:  make(map[string]struct{}),
	}
}

// takePending swaps out the pending scopes.
//
// ok: untrackedgo
func (r *EventReloader) takePending() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	scopes := make([]string, 0, len(r.pending))
	for s := range r.pending {
		scopes = append(scopes, s)
	}
	r.pending = make(map[string]struct{})
	return scopes
}

// flush rebuilds the pending scopes.
//
// ok: untrackedgo
func (r *EventReloader) flush(ctx context.Context) {
	scopes := r.takePending()
	if len(scopes) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	_ = r.target.Rebuild(ctx, scopes)
}

// Run collects events and flushes them after the debounce interval.
// From: GizClaw/flowcraft#159
// each flush runs in a goroutine that is not added to r.wg, so Close, which
// waits only for the loop itself, can return while a Rebuild is still in flight
//
// bug: untrackedgo
func (r *EventReloader) Run(ctx context.Context) {
	t := time.NewTimer(r.debounce)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case scope := <-r.events:
			r.mu.Lock()
			r.pending[scope] = struct{}{}
			r.mu.Unlock()
			t.Reset(r.debounce)
		case <-t.C:
			go r.flush(ctx)
		}
	}
}

// RunNearMiss tracks every flush goroutine in r.wg.
// From: GizClaw/flowcraft#159
//
// ok: untrackedgo
func (r *EventReloader) RunNearMiss(ctx context.Context) {
	t := time.NewTimer(r.debounce)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case scope := <-r.events:
			r.mu.Lock()
			r.pending[scope] = struct{}{}
			r.mu.Unlock()
			t.Reset(r.debounce)
		case <-t.C:
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.flush(ctx)
			}()
		}
	}
}

// Start runs the reloader loop in a goroutine tracked by r.wg.
//
// ok: untrackedgo
func (r *EventReloader) Start(ctx context.Context) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.RunNearMiss(ctx)
	}()
}

// Close stops the loop and waits for everything tracked in r.wg.
//
// ok: untrackedgo
func (r *EventReloader) Close() {
	close(r.stop)
	r.wg.Wait()
}

// ---------------------------------------------------------------------------
// Hash store (ipld/go-storethehash#25)

// Store is an append-only index with a background flusher.
type Store struct {
	file     *os.File
	interval time.Duration

	mu      sync.Mutex
	buf     []byte
	closing chan struct{}
	runDone chan struct{}
}

// OpenStore opens the index file and starts the flusher.
//
// ok: untrackedgo
func OpenStore(path string, interval time.Duration) (*Store, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s := &Store{file: f, interval: interval, closing: make(chan struct{}), runDone: make(chan struct{})}
	go s.run()
	return s, nil
}

// run flushes the buffer periodically until the store closes.
//
// ok: untrackedgo
func (s *Store) run() {
	defer close(s.runDone)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
			_ = s.flush()
		}
	}
}

// Put appends an entry to the buffer.
//
// ok: untrackedgo
func (s *Store) Put(entry []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, entry...)
}

// flush writes the buffered entries.
//
// ok: untrackedgo
func (s *Store) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) == 0 {
		return nil
	}
	_, err := s.file.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}

// Close flushes and closes the store.
// From: ipld/go-storethehash#25
// Close signals the flusher but does not wait for it to exit, so a flush
// already in progress can run against the file after it has been closed
//
// bug: untrackedgo
func (s *Store) Close() error {
	close(s.closing)
	ferr := s.flush()
	cerr := s.file.Close()
	return errors.Join(ferr, cerr)
}

// CloseNearMiss waits for the flusher before the final flush and close.
// From: ipld/go-storethehash#25
//
// ok: untrackedgo
func (s *Store) CloseNearMiss() error {
	close(s.closing)
	<-s.runDone
	ferr := s.flush()
	cerr := s.file.Close()
	return errors.Join(ferr, cerr)
}

// ---------------------------------------------------------------------------
// Batch buffer (unkeyed/unkey#4226)

// Batcher groups items and hands full batches to consumers.
type Batcher[T any] struct {
	in    chan T
	size  int
	flush func(context.Context, []T) error
	g     *errgroup.Group
}

// NewBatcher starts n consumers that batch items from the buffer.
//
// ok: untrackedgo
func NewBatcher[T any](ctx context.Context, n, size int, flush func(context.Context, []T) error) *Batcher[T] {
	g, ctx := errgroup.WithContext(ctx)
	b := &Batcher[T]{in: make(chan T, size*n), size: size, flush: flush, g: g}
	for range n {
		g.Go(func() error { return b.consume(ctx) })
	}
	return b
}

// consume collects items into batches until the buffer is closed.
//
// ok: untrackedgo
func (b *Batcher[T]) consume(ctx context.Context) error {
	batch := make([]T, 0, b.size)
	for item := range b.in {
		batch = append(batch, item)
		if len(batch) == b.size {
			if err := b.flush(ctx, batch); err != nil {
				return err
			}
			batch = make([]T, 0, b.size)
		}
	}
	if len(batch) > 0 {
		return b.flush(ctx, batch)
	}
	return nil
}

// Buffer queues one item.
//
// ok: untrackedgo
func (b *Batcher[T]) Buffer(ctx context.Context, item T) error {
	select {
	case b.in <- item:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting items.
// From: unkeyed/unkey#4226
// Close closes the buffer and returns at once; the consumers started by
// NewBatcher are still flushing their last batches when the caller moves on
//
// bug: untrackedgo
func (b *Batcher[T]) Close() error {
	close(b.in)
	return nil
}

// CloseNearMiss closes the buffer and waits for the consumers.
// From: unkeyed/unkey#4226
//
// ok: untrackedgo
func (b *Batcher[T]) CloseNearMiss() error {
	close(b.in)
	return b.g.Wait()
}

// ShutdownHTTP shuts an HTTP server down and then closes the batcher.
//
// ok: untrackedgo
func ShutdownHTTP(ctx context.Context, srv *http.Server, b *Batcher[string]) error {
	serr := srv.Shutdown(ctx)
	berr := b.CloseNearMiss()
	return errors.Join(serr, berr)
}
