// Package untracked holds go statements whose goroutines may or may not be
// joined or bounded by their owner.
package untracked

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// SIP server request handling (ghettovoice/gosip#52)
// ---------------------------------------------------------------------------

// SIPRequest is an incoming SIP request.
type SIPRequest struct {
	Method string
	CallID string
}

// ServerTransaction answers a request.
type ServerTransaction interface {
	Respond(code int, reason string) error
}

// RequestHandler is a user handler for one SIP method.
type RequestHandler func(req SIPRequest, tx ServerTransaction)

// SIPServer dispatches requests to user handlers. Shutdown waits on hwg for
// all handlers to return before the transport layer is torn down.
type SIPServer struct {
	mu       sync.RWMutex
	handlers map[string]RequestHandler
	hwg      sync.WaitGroup
	logger   *log.Logger
}

// Serve is called by the transaction layer for every new request. The
// goroutine is counted in hwg here and joined by Shutdown.
//
// ok: untrackedgo
func (srv *SIPServer) Serve(req SIPRequest, tx ServerTransaction) {
	srv.hwg.Add(1)
	go srv.handleRequest(req, tx)
}

// Shutdown waits for every running handler.
// ok: untrackedgo
func (srv *SIPServer) Shutdown() {
	srv.hwg.Wait()
}

// handleRequest looks up and runs the handler for req.
//
// From: ghettovoice/gosip#52
// bug: untrackedgo
func (srv *SIPServer) handleRequest(req SIPRequest, tx ServerTransaction) {
	defer srv.hwg.Done()

	srv.mu.RLock()
	handler, ok := srv.handlers[req.Method]
	srv.mu.RUnlock()
	if !ok {
		srv.logger.Printf("no handler for %s, responding 405", req.Method)
		_ = tx.Respond(405, "Method Not Allowed")
		return
	}
	// The user handler is started in yet another goroutine that hwg does not
	// count: Done runs immediately and Shutdown returns while handlers are
	// still using the transport.
	go handler(req, tx)
}

// handleRequestNearMiss looks up and runs the handler for req.
//
// ok: untrackedgo
func (srv *SIPServer) handleRequestNearMiss(req SIPRequest, tx ServerTransaction) {
	defer srv.hwg.Done()

	srv.mu.RLock()
	handler, ok := srv.handlers[req.Method]
	srv.mu.RUnlock()
	if !ok {
		srv.logger.Printf("no handler for %s, responding 405", req.Method)
		_ = tx.Respond(405, "Method Not Allowed")
		return
	}
	handler(req, tx)
}

// ---------------------------------------------------------------------------
// Per-chat serial queue (hrygo/hotplex#35)
// ---------------------------------------------------------------------------

// ChatTask is a unit of work for one chat.
type ChatTask struct {
	ChatID string
	Run    func(ctx context.Context)
}

type chatWorker struct {
	tasks chan ChatTask
}

// ok: untrackedgo
func (w *chatWorker) loop(ctx context.Context) {
	for task := range w.tasks {
		task.Run(ctx)
	}
}

// ChatQueue runs the tasks of each chat in order, one worker per chat.
type ChatQueue struct {
	queueDepth int
}

// Serve dispatches incoming tasks to per-chat workers until ctx is done. On
// return every in-flight task has finished.
//
// From: hrygo/hotplex#35
// bug: untrackedgo
func (q *ChatQueue) Serve(ctx context.Context, incoming <-chan ChatTask) error {
	workers := make(map[string]*chatWorker)
	for {
		select {
		case task := <-incoming:
			w, ok := workers[task.ChatID]
			if !ok {
				w = &chatWorker{tasks: make(chan ChatTask, q.queueDepth)}
				workers[task.ChatID] = w
				go w.loop(ctx)
			}
			w.tasks <- task
		case <-ctx.Done():
			// Closing the channels only asks the workers to stop; nothing
			// waits for them, so a 10-minute task keeps running after Serve
			// has returned and the caller has released shared resources.
			for _, w := range workers {
				close(w.tasks)
			}
			return ctx.Err()
		}
	}
}

// ServeNearMiss dispatches incoming tasks to per-chat workers until ctx is
// done. On return every in-flight task has finished.
//
// ok: untrackedgo
func (q *ChatQueue) ServeNearMiss(ctx context.Context, incoming <-chan ChatTask) error {
	var wg sync.WaitGroup
	workers := make(map[string]*chatWorker)
	for {
		select {
		case task := <-incoming:
			w, ok := workers[task.ChatID]
			if !ok {
				w = &chatWorker{tasks: make(chan ChatTask, q.queueDepth)}
				workers[task.ChatID] = w
				wg.Add(1)
				go func() {
					defer wg.Done()
					w.loop(ctx)
				}()
			}
			w.tasks <- task
		case <-ctx.Done():
			for _, w := range workers {
				close(w.tasks)
			}
			wg.Wait()
			return ctx.Err()
		}
	}
}

// ---------------------------------------------------------------------------
// Parallel COPY with progress reporting (timescale/timescaledb-parallel-copy#95)
// ---------------------------------------------------------------------------

// Batch is a chunk of CSV lines.
type Batch struct {
	Lines []string
}

// Copier copies batches into a hypertable with several workers.
type Copier struct {
	workers        int
	reportInterval time.Duration
	copyBatch      func(ctx context.Context, b Batch) (int64, error)
	out            io.Writer
	rows           atomic.Int64
}

// ok: untrackedgo
func (c *Copier) report(ctx context.Context, start time.Time) {
	t := time.NewTicker(c.reportInterval)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			cur := c.rows.Load()
			fmt.Fprintf(c.out, "at %v, row rate %.2f/sec (overall %.2f/sec), %d rows\n",
				now.Sub(start).Round(time.Second),
				float64(cur-last)/c.reportInterval.Seconds(),
				float64(cur)/now.Sub(start).Seconds(), cur)
			last = cur
		}
	}
}

// Copy runs the workers over batches and prints a final summary.
//
// From: timescale/timescaledb-parallel-copy#95
// bug: untrackedgo
func (c *Copier) Copy(ctx context.Context, batches <-chan Batch) (int64, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if c.reportInterval > 0 {
		// Not part of the wait group: after wg.Wait the reporter may still
		// be printing a stale rate line after (or interleaved with) the
		// final summary below.
		go c.report(ctx, start)
	}

	var wg sync.WaitGroup
	errs := make(chan error, c.workers)
	for i := 0; i < c.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				n, err := c.copyBatch(ctx, b)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				c.rows.Add(n)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return c.rows.Load(), err
	}
	total := c.rows.Load()
	fmt.Fprintf(c.out, "COPY %d, took %v\n", total, time.Since(start))
	return total, nil
}

// CopyNearMiss runs the workers over batches and prints a final summary.
//
// ok: untrackedgo
func (c *Copier) CopyNearMiss(ctx context.Context, batches <-chan Batch) (int64, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var reporterWG sync.WaitGroup
	reportCtx, stopReport := context.WithCancel(ctx)
	defer stopReport()
	if c.reportInterval > 0 {
		reporterWG.Add(1)
		go func() {
			defer reporterWG.Done()
			c.report(reportCtx, start)
		}()
	}

	var wg sync.WaitGroup
	errs := make(chan error, c.workers)
	for i := 0; i < c.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				n, err := c.copyBatch(ctx, b)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				c.rows.Add(n)
			}
		}()
	}
	wg.Wait()
	stopReport()
	reporterWG.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return c.rows.Load(), err
	}
	total := c.rows.Load()
	fmt.Fprintf(c.out, "COPY %d, took %v\n", total, time.Since(start))
	return total, nil
}

// ---------------------------------------------------------------------------
// Worker pool dispatcher (cilium/workerpool#5)
// ---------------------------------------------------------------------------

// Task is submitted to the pool.
type Task struct {
	ID  string
	Run func(ctx context.Context) error
}

// WorkerPool runs tasks on a fixed number of workers.
type WorkerPool struct {
	tasks   chan Task
	results chan error
	workers sync.WaitGroup
	n       int
}

// NewWorkerPool creates a pool with n workers.
// ok: untrackedgo
func NewWorkerPool(n int) *WorkerPool {
	return &WorkerPool{tasks: make(chan Task), results: make(chan error, n), n: n}
}

// Results returns the task outcomes; callers drain it until it is closed.
// ok: untrackedgo
func (wp *WorkerPool) Results() <-chan error { return wp.results }

// Submit hands t to the dispatcher.
// ok: untrackedgo
func (wp *WorkerPool) Submit(ctx context.Context, t Task) error {
	select {
	case wp.tasks <- t:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run dispatches tasks; each task goroutine is bounded by sem and joined by
// wp.workers.Wait before results is closed.
//
// ok: untrackedgo
func (wp *WorkerPool) run(ctx context.Context, quit <-chan struct{}) {
	sem := make(chan struct{}, wp.n)
	for {
		select {
		case <-quit:
			wp.workers.Wait()
			close(wp.results)
			return
		case t := <-wp.tasks:
			sem <- struct{}{}
			wp.workers.Add(1)
			go func() {
				defer wp.workers.Done()
				defer func() { <-sem }()
				wp.results <- t.Run(ctx)
			}()
		}
	}
}

// Start launches the dispatcher and returns the function that closes the
// pool. Once close returns, no task is running any more.
//
// From: cilium/workerpool#5
// bug: untrackedgo
func (wp *WorkerPool) Start(ctx context.Context) (closeFn func()) {
	quit := make(chan struct{})
	// The dispatcher goroutine is never waited for: closeFn returns as soon
	// as quit is closed, while run is still waiting for in-flight tasks.
	go wp.run(ctx, quit)
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
	}
}

// StartNearMiss launches the dispatcher and returns the function that closes
// the pool. Once close returns, no task is running any more.
//
// ok: untrackedgo
func (wp *WorkerPool) StartNearMiss(ctx context.Context) (closeFn func()) {
	quit := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		wp.run(ctx, quit)
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-stopped
	}
}

// ---------------------------------------------------------------------------
// Telegram bot update loop (SamSaffron/term-llm#262)
// ---------------------------------------------------------------------------

// Update is one incoming Telegram update.
type Update struct {
	ChatID int64
	Text   string
}

// TelegramBot answers messages with a model.
type TelegramBot struct {
	handleMessage func(ctx context.Context, u Update)
	maxInFlight   int
}

// Listen handles updates until the updates channel closes or ctx ends.
//
// From: SamSaffron/term-llm#262
// bug: untrackedgo
func (b *TelegramBot) Listen(ctx context.Context, updates <-chan Update) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case u, ok := <-updates:
			if !ok {
				return nil
			}
			// One goroutine per update with no cap: handleMessage can block
			// for minutes while the model streams, so a flood of messages
			// piles up goroutines and pending work without bound.
			go b.handleMessage(ctx, u)
		}
	}
}

// ListenNearMiss handles updates until the updates channel closes or ctx
// ends, with at most maxInFlight handlers running.
//
// ok: untrackedgo
func (b *TelegramBot) ListenNearMiss(ctx context.Context, updates <-chan Update) error {
	slots := make(chan struct{}, b.maxInFlight)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case u, ok := <-updates:
			if !ok {
				return nil
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				b.handleMessage(ctx, u)
			}()
		}
	}
}

// ---------------------------------------------------------------------------
// P2P notification broadcast (bsv-blockchain/teranode#775)
// ---------------------------------------------------------------------------

// Notification is pushed to every subscribed client.
type Notification struct {
	Type string
	Hash string
}

type clientChannelMap struct {
	mu          sync.RWMutex
	clients     map[string]chan Notification
	sendTimeout time.Duration
	poolSize    int
	logger      *log.Logger
}

// broadcast sends n to every client, dropping it for clients that do not
// keep up within sendTimeout.
//
// From: bsv-blockchain/teranode#775
// bug: untrackedgo
func (m *clientChannelMap) broadcast(n Notification) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for id, ch := range m.clients {
		// One goroutine (and one timer) per client per message, unbounded:
		// 256 clients at 100 msg/s is 25,600 new goroutines a second.
		go func() {
			t := time.NewTimer(m.sendTimeout)
			defer t.Stop()
			select {
			case ch <- n:
			case <-t.C:
				m.logger.Printf("dropping %s notification for slow client %s", n.Type, id)
			}
		}()
	}
}

// broadcastNearMiss sends n to every client with at most poolSize sends in
// flight, and returns once every send has finished or timed out.
//
// ok: untrackedgo
func (m *clientChannelMap) broadcastNearMiss(n Notification) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	sem := make(chan struct{}, max(m.poolSize, 1))
	var wg sync.WaitGroup
	for id, ch := range m.clients {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t := time.NewTimer(m.sendTimeout)
			defer t.Stop()
			select {
			case ch <- n:
			case <-t.C:
				m.logger.Printf("dropping %s notification for slow client %s", n.Type, id)
			}
		}()
	}
	wg.Wait()
}

// ---------------------------------------------------------------------------
// Region job import (pingcap/tidb#70180)
// ---------------------------------------------------------------------------

// RegionJob ingests one key range.
type RegionJob struct {
	StartKey, EndKey []byte
	release          func()
}

// IngestBackend owns the buffer pool region jobs borrow from.
type IngestBackend struct {
	workerCount int
	ingest      func(ctx context.Context, j *RegionJob) error
}

// DoImport feeds jobs to workers and returns once the import is done. The
// caller destroys the ingest buffer pool right after DoImport returns.
//
// From: pingcap/tidb#70180
// bug: untrackedgo
func (b *IngestBackend) DoImport(ctx context.Context, jobs []*RegionJob) error {
	jobCh := make(chan *RegionJob)
	errCh := make(chan error, b.workerCount)
	var wg sync.WaitGroup
	for i := 0; i < b.workerCount; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobCh {
				err := b.ingest(ctx, j)
				j.release()
				if err != nil {
					errCh <- err
					return
				}
			}
		}()
	}

	for _, j := range jobs {
		select {
		case jobCh <- j:
		case err := <-errCh:
			close(jobCh)
			wg.Wait()
			return err
		case <-ctx.Done():
			// Returns while workers may still be inside ingest/release; the
			// caller then frees the buffer pool under them ("send on closed
			// channel" panic in the worker's release).
			close(jobCh)
			return ctx.Err()
		}
	}
	close(jobCh)
	wg.Wait()
	select {
	case err := <-errCh:
		return err
	default:
		return nil
	}
}

// DoImportNearMiss feeds jobs to workers and returns once the import is done
// and every worker has exited.
//
// ok: untrackedgo
func (b *IngestBackend) DoImportNearMiss(ctx context.Context, jobs []*RegionJob) error {
	jobCh := make(chan *RegionJob)
	errCh := make(chan error, b.workerCount)
	var wg sync.WaitGroup
	for i := 0; i < b.workerCount; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobCh {
				err := b.ingest(ctx, j)
				j.release()
				if err != nil {
					errCh <- err
					return
				}
			}
		}()
	}

	for _, j := range jobs {
		select {
		case jobCh <- j:
		case err := <-errCh:
			close(jobCh)
			wg.Wait()
			return err
		case <-ctx.Done():
			close(jobCh)
			wg.Wait()
			return ctx.Err()
		}
	}
	close(jobCh)
	wg.Wait()
	select {
	case err := <-errCh:
		return err
	default:
		return nil
	}
}

// ---------------------------------------------------------------------------
// Analytics client flushing (segmentio/analytics-go#97)
// ---------------------------------------------------------------------------

// TrackMessage is one analytics event.
type TrackMessage struct {
	Event  string
	UserID string
}

// AnalyticsClient batches messages and uploads them.
type AnalyticsClient struct {
	upload      func(ctx context.Context, batch []TrackMessage) error
	flushAt     int
	maxInFlight int
	logger      *log.Logger
}

// loop batches msgs and uploads every full batch in the background.
//
// From: segmentio/analytics-go#97
// bug: untrackedgo
func (c *AnalyticsClient) loop(ctx context.Context, msgs <-chan TrackMessage) {
	var batch []TrackMessage
	for m := range msgs {
		batch = append(batch, m)
		if len(batch) < c.flushAt {
			continue
		}
		b := batch
		batch = nil
		// A goroutine per flush, unbounded and never awaited: when the API
		// is slow, uploads pile up, and messages still in flight are lost
		// when the process exits after loop returns.
		go func() {
			if err := c.upload(ctx, b); err != nil {
				c.logger.Printf("analytics: upload of %d messages failed: %v", len(b), err)
			}
		}()
	}
	if len(batch) > 0 {
		if err := c.upload(ctx, batch); err != nil {
			c.logger.Printf("analytics: final upload failed: %v", err)
		}
	}
}

// loopNearMiss batches msgs and uploads every full batch in the background,
// with at most maxInFlight uploads, and waits for them before returning.
//
// ok: untrackedgo
func (c *AnalyticsClient) loopNearMiss(ctx context.Context, msgs <-chan TrackMessage) {
	var wg sync.WaitGroup
	inFlight := make(chan struct{}, c.maxInFlight)
	var batch []TrackMessage
	for m := range msgs {
		batch = append(batch, m)
		if len(batch) < c.flushAt {
			continue
		}
		b := batch
		batch = nil
		inFlight <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-inFlight }()
			if err := c.upload(ctx, b); err != nil {
				c.logger.Printf("analytics: upload of %d messages failed: %v", len(b), err)
			}
		}()
	}
	if len(batch) > 0 {
		if err := c.upload(ctx, batch); err != nil {
			c.logger.Printf("analytics: final upload failed: %v", err)
		}
	}
	wg.Wait()
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// FetchAll fans out one goroutine per URL; the goroutines are joined through
// the results channel, which is drained exactly len(urls) times.
//
// ok: untrackedgo
func FetchAll(ctx context.Context, urls []string, fetch func(context.Context, string) ([]byte, error)) (map[string][]byte, error) {
	type result struct {
		url  string
		body []byte
		err  error
	}
	results := make(chan result, len(urls))
	for _, u := range urls {
		go func() {
			b, err := fetch(ctx, u)
			results <- result{url: u, body: b, err: err}
		}()
	}
	out := make(map[string][]byte, len(urls))
	var errs []error
	for range urls {
		r := <-results
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.url, r.err))
			continue
		}
		out[r.url] = r.body
	}
	return out, errors.Join(errs...)
}

// ResizeAll runs a bounded errgroup; Wait joins every goroutine.
//
// ok: untrackedgo
func ResizeAll(ctx context.Context, images []string, resize func(context.Context, string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, img := range images {
		g.Go(func() error { return resize(ctx, img) })
	}
	return g.Wait()
}

// StartHeartbeat starts a background heartbeat and hands its lifetime to the
// caller: the returned stop function cancels it and waits for it to exit.
//
// ok: untrackedgo
func StartHeartbeat(ctx context.Context, every time.Duration, beat func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				beat(ctx)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// Pipe copies src to dst in a goroutine and waits for it via the error
// channel before returning.
//
// ok: untrackedgo
func Pipe(dst io.Writer, src io.Reader) (int64, error) {
	type copied struct {
		n   int64
		err error
	}
	done := make(chan copied, 1)
	go func() {
		n, err := io.Copy(dst, src)
		done <- copied{n, err}
	}()
	c := <-done
	return c.n, c.err
}
