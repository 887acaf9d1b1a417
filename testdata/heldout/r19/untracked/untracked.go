// Package untracked holds go statements that nothing joins or bounds, so
// work outlives the component that started it.
package untracked

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Webhook server: forge -> board projection

// BoardStore persists projected board state for a repository.
type BoardStore interface {
	Project(ctx context.Context, repo string) error
}

// WebhookServer answers forge deliveries and projects them onto the board.
type WebhookServer struct {
	board         BoardStore
	logger        *log.Logger
	projectionSem chan struct{}

	baseCtx context.Context // cancelled by Shutdown
	stop    context.CancelFunc
	bg      sync.WaitGroup
}

// NewWebhookServer builds a server whose background work lives under parent.
//
// ok: untrackedgo
func NewWebhookServer(parent context.Context, board BoardStore, logger *log.Logger) *WebhookServer {
	ctx, stop := context.WithCancel(parent)
	return &WebhookServer{
		board:         board,
		logger:        logger,
		projectionSem: make(chan struct{}, 16),
		baseCtx:       ctx,
		stop:          stop,
	}
}

// project writes one repository's board projection with a bounded timeout.
//
// ok: untrackedgo
func (s *WebhookServer) project(repo string) {
	ctx, cancel := context.WithTimeout(s.baseCtx, 30*time.Second)
	defer cancel()
	if err := s.board.Project(ctx, repo); err != nil {
		s.logger.Printf("board projection for %s failed: %v", repo, err)
	}
}

// scheduleBoardProjection projects a delivery onto the board after the webhook has been acknowledged.
// From: SocialGouv/iterion#1345
// the goroutine is capped by the semaphore but not registered with s.bg, so Shutdown returns while up to sixteen board writes are still running
//
// bug: untrackedgo
func (s *WebhookServer) scheduleBoardProjection(repo string) {
	select {
	case s.projectionSem <- struct{}{}:
		go func() {
			defer func() { <-s.projectionSem }()
			s.project(repo)
		}()
	default:
		s.logger.Printf("board projection for %s dropped: too many in flight", repo)
	}
}

// scheduleBoardProjectionNearMiss is scheduleBoardProjection joined through s.bg.
// From: SocialGouv/iterion#1345
//
// ok: untrackedgo
func (s *WebhookServer) scheduleBoardProjectionNearMiss(repo string) {
	select {
	case s.projectionSem <- struct{}{}:
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			defer func() { <-s.projectionSem }()
			s.project(repo)
		}()
	default:
		s.logger.Printf("board projection for %s dropped: too many in flight", repo)
	}
}

// Shutdown cancels background work and waits for tracked goroutines.
//
// ok: untrackedgo
func (s *WebhookServer) Shutdown() {
	s.stop()
	s.bg.Wait()
}

// ---------------------------------------------------------------------------
// Agent orchestrator: tracker API side effects

// Tracker is the issue tracker API.
type Tracker interface {
	CommentIssue(ctx context.Context, issue, body string) error
}

// Orchestrator runs agent sessions and reports on the tracker.
type Orchestrator struct {
	tracker Tracker
	logger  *log.Logger

	minCommentDuration time.Duration

	mu        sync.Mutex
	completed map[string]int

	runCtx     context.Context
	cancelRun  context.CancelFunc
	workers    sync.WaitGroup
	trackerOps sync.WaitGroup
}

// NewOrchestrator builds an orchestrator bound to parent.
//
// ok: untrackedgo
func NewOrchestrator(parent context.Context, tracker Tracker, logger *log.Logger) *Orchestrator {
	ctx, cancel := context.WithCancel(parent)
	return &Orchestrator{
		tracker:            tracker,
		logger:             logger,
		minCommentDuration: 10 * time.Second,
		completed:          make(map[string]int),
		runCtx:             ctx,
		cancelRun:          cancel,
	}
}

// commentIssue posts a best-effort comment with its own timeout.
//
// ok: untrackedgo
func (o *Orchestrator) commentIssue(issue, body string) {
	ctx, cancel := context.WithTimeout(o.runCtx, 30*time.Second)
	defer cancel()
	if err := o.tracker.CommentIssue(ctx, issue, body); err != nil {
		o.logger.Printf("comment on %s: %v", issue, err)
	}
}

// SessionResult is the outcome of one agent session.
type SessionResult struct {
	Issue    string
	Attempt  int
	Duration time.Duration
	Err      error
}

// summary renders the session result as a tracker comment.
//
// ok: untrackedgo
func (r SessionResult) summary() string {
	if r.Err != nil {
		return fmt.Sprintf("Attempt %d failed after %s: %v", r.Attempt, r.Duration.Round(time.Second), r.Err)
	}
	return fmt.Sprintf("Attempt %d finished after %s.", r.Attempt, r.Duration.Round(time.Second))
}

// onSessionExit records a finished session and posts its summary to the issue.
// From: sortie-ai/sortie#376
// the comment is posted from a goroutine started on a method value that no WaitGroup tracks, so drainRunningWorkers returns while the tracker call may still be in flight
//
// bug: untrackedgo
func (o *Orchestrator) onSessionExit(res SessionResult) {
	o.mu.Lock()
	o.completed[res.Issue]++
	attempts := o.completed[res.Issue]
	o.mu.Unlock()
	if res.Err != nil {
		o.logger.Printf("session for %s failed (attempt %d): %v", res.Issue, attempts, res.Err)
	}
	if res.Duration < o.minCommentDuration {
		return
	}
	go o.commentIssue(res.Issue, res.summary())
}

// onSessionExitNearMiss is onSessionExit with the comment tracked by trackerOps.
// From: sortie-ai/sortie#376
//
// ok: untrackedgo
func (o *Orchestrator) onSessionExitNearMiss(res SessionResult) {
	o.mu.Lock()
	o.completed[res.Issue]++
	attempts := o.completed[res.Issue]
	o.mu.Unlock()
	if res.Err != nil {
		o.logger.Printf("session for %s failed (attempt %d): %v", res.Issue, attempts, res.Err)
	}
	if res.Duration < o.minCommentDuration {
		return
	}
	body := res.summary()
	o.trackerOps.Go(func() { o.commentIssue(res.Issue, body) })
}

// drainRunningWorkers stops the orchestrator and waits for workers and tracker calls.
//
// ok: untrackedgo
func (o *Orchestrator) drainRunningWorkers() {
	o.cancelRun()
	o.workers.Wait()
	o.trackerOps.Wait()
}

// ---------------------------------------------------------------------------
// API server: usage recording

// UsageStore records API key usage.
type UsageStore interface {
	RecordAPIUsage(ctx context.Context, keyID, path string) error
}

// APIServer authenticates API keys and records their use.
type APIServer struct {
	store  UsageStore
	logger *log.Logger
	appCtx context.Context
	lookup func(r *http.Request) (keyID string, ok bool)
	writer *asyncWriter
}

// recordUsage writes one usage row with a short timeout.
//
// ok: untrackedgo
func (s *APIServer) recordUsage(ctx context.Context, keyID, path string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.store.RecordAPIUsage(ctx, keyID, path); err != nil {
		s.logger.Printf("record usage for %s: %v", keyID, err)
	}
}

// authenticate rejects requests without a valid key and records usage.
// From: digitaldrywood/detent#1015
// one untracked goroutine is started per authenticated request; nothing caps them and Shutdown does not wait, so usage writes still run after the server stopped
//
// bug: untrackedgo
func (s *APIServer) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keyID, ok := s.lookup(r)
		if !ok {
			http.Error(w, "invalid API key", http.StatusUnauthorized)
			return
		}
		path := r.URL.Path
		go s.recordUsage(s.appCtx, keyID, path)
		next.ServeHTTP(w, r)
	})
}

// authenticateNearMiss is authenticate handing usage writes to the bounded async writer.
// From: digitaldrywood/detent#1015
//
// ok: untrackedgo
func (s *APIServer) authenticateNearMiss(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keyID, ok := s.lookup(r)
		if !ok {
			http.Error(w, "invalid API key", http.StatusUnauthorized)
			return
		}
		path := r.URL.Path
		s.writer.Enqueue(func(ctx context.Context) { s.recordUsage(ctx, keyID, path) })
		next.ServeHTTP(w, r)
	})
}

// asyncWriter runs store writes on a single worker with a bounded queue.
type asyncWriter struct {
	jobs    chan func(context.Context)
	done    chan struct{}
	dropped atomic.Int64
	logger  *log.Logger
}

// newAsyncWriter starts the worker; Close must be called to stop it.
//
// ok: untrackedgo
func newAsyncWriter(ctx context.Context, buffer int, logger *log.Logger) *asyncWriter {
	w := &asyncWriter{jobs: make(chan func(context.Context), buffer), done: make(chan struct{}), logger: logger}
	go w.run(ctx)
	return w
}

// run executes queued jobs until the queue is closed.
//
// ok: untrackedgo
func (w *asyncWriter) run(ctx context.Context) {
	defer close(w.done)
	for job := range w.jobs {
		job(ctx)
	}
}

// Enqueue queues a job without blocking; it drops the job when the queue is full.
//
// ok: untrackedgo
func (w *asyncWriter) Enqueue(job func(context.Context)) bool {
	select {
	case w.jobs <- job:
		return true
	default:
		w.dropped.Add(1)
		w.logger.Printf("async writer queue full, dropping job")
		return false
	}
}

// Close stops accepting jobs and waits for the worker to drain the queue.
//
// ok: untrackedgo
func (w *asyncWriter) Close(ctx context.Context) error {
	close(w.jobs)
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Notification service (errgroup)

// Notification is an event fanned out to subscribers.
type Notification struct {
	Topic   string
	Payload []byte
}

// NotificationService consumes notifications and dispatches them.
type NotificationService struct {
	notifications <-chan Notification
	dispatch      func(ctx context.Context, n Notification)
	consume       func(ctx context.Context) error
}

// Run consumes and dispatches notifications until ctx ends.
// From: teradata-labs/loom#311
// each dispatch is started with a bare go statement inside the errgroup function, so g.Wait and Run return while broadcast handlers are still running
//
// bug: untrackedgo
func (s *NotificationService) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.consume(ctx) })
	g.Go(func() error {
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case n, ok := <-s.notifications:
				if !ok {
					return nil
				}
				go s.dispatch(ctx, n)
			}
		}
	})
	return g.Wait()
}

// RunNearMiss is Run starting every dispatch through the errgroup.
// From: teradata-labs/loom#311
//
// ok: untrackedgo
func (s *NotificationService) RunNearMiss(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.consume(ctx) })
	g.Go(func() error {
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case n, ok := <-s.notifications:
				if !ok {
					return nil
				}
				g.Go(func() error {
					s.dispatch(ctx, n)
					return nil
				})
			}
		}
	})
	return g.Wait()
}

// ---------------------------------------------------------------------------
// Back-network broadcaster

// Backnet sends messages to peer servers.
type Backnet struct {
	peers []string
	send  func(ctx context.Context, peer string, msg []byte) error
	log   *log.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewBacknet builds a broadcaster under parent.
//
// ok: untrackedgo
func NewBacknet(parent context.Context, peers []string, send func(context.Context, string, []byte) error, logger *log.Logger) *Backnet {
	ctx, cancel := context.WithCancel(parent)
	return &Backnet{peers: peers, send: send, log: logger, ctx: ctx, cancel: cancel}
}

// sendToServer delivers msg to one peer.
//
// ok: untrackedgo
func (b *Backnet) sendToServer(peer string, msg []byte) {
	if err := b.send(b.ctx, peer, msg); err != nil {
		b.log.Printf("send to %s: %v", peer, err)
	}
}

// register records one in-flight send so Stop waits for it.
//
// ok: untrackedgo
func (b *Backnet) register() {
	b.wg.Add(1)
}

// Broadcast sends msg to every peer concurrently.
// From: andres-erbsen/dename#10
// each goroutine registers itself with the WaitGroup only once it runs, so Stop's Wait can see a zero counter and return before the sends have registered, leaving them running after Stop
//
// bug: untrackedgo
func (b *Backnet) Broadcast(msg []byte) {
	for _, peer := range b.peers {
		go func() {
			b.register()
			defer b.wg.Done()
			b.sendToServer(peer, msg)
		}()
	}
}

// BroadcastNearMiss is Broadcast registering each goroutine before it starts.
// From: andres-erbsen/dename#10
//
// ok: untrackedgo
func (b *Backnet) BroadcastNearMiss(msg []byte) {
	for _, peer := range b.peers {
		b.register()
		go func() {
			defer b.wg.Done()
			b.sendToServer(peer, msg)
		}()
	}
}

// Stop cancels in-flight sends and waits for them.
//
// ok: untrackedgo
func (b *Backnet) Stop() {
	b.cancel()
	b.wg.Wait()
}

// ---------------------------------------------------------------------------
// LLM proxy side tasks

// Usage accumulates per-user request statistics.
type Usage struct {
	Requests int
	Tokens   int
	Latency  time.Duration
}

// Proxy forwards LLM requests and updates per-user bookkeeping.
type Proxy struct {
	touch         func(ctx context.Context, user string) error
	baseCtx       context.Context
	logger        *log.Logger
	slowThreshold time.Duration

	mu    sync.Mutex
	usage map[string]Usage

	sideSem chan struct{}
	side    sync.WaitGroup
	dropped atomic.Int64
}

// touchLastActive updates the user's last-active timestamp.
//
// ok: untrackedgo
func (p *Proxy) touchLastActive(user string) {
	ctx, cancel := context.WithTimeout(p.baseCtx, 2*time.Second)
	defer cancel()
	if err := p.touch(ctx, user); err != nil {
		p.logger.Printf("touch last active for %s: %v", user, err)
	}
}

// afterRequest runs bookkeeping once a proxied request completes.
// From: candelahq/candela#333
// a bare go statement per request with no semaphore and no WaitGroup: under load the goroutines pile up and Close cannot wait for them
//
// bug: untrackedgo
func (p *Proxy) afterRequest(user string, tokens int, latency time.Duration) {
	p.mu.Lock()
	u := p.usage[user]
	u.Requests++
	u.Tokens += tokens
	u.Latency += latency
	p.usage[user] = u
	p.mu.Unlock()
	if latency > p.slowThreshold {
		p.logger.Printf("slow upstream response for %s: %s", user, latency)
	}
	go p.touchLastActive(user)
}

// afterRequestNearMiss is afterRequest bounded by sideSem and tracked by side.
// From: candelahq/candela#333
//
// ok: untrackedgo
func (p *Proxy) afterRequestNearMiss(user string, tokens int, latency time.Duration) {
	p.mu.Lock()
	u := p.usage[user]
	u.Requests++
	u.Tokens += tokens
	u.Latency += latency
	p.usage[user] = u
	p.mu.Unlock()
	if latency > p.slowThreshold {
		p.logger.Printf("slow upstream response for %s: %s", user, latency)
	}
	select {
	case p.sideSem <- struct{}{}:
		p.side.Add(1)
		go func() {
			defer p.side.Done()
			defer func() { <-p.sideSem }()
			p.touchLastActive(user)
		}()
	default:
		p.dropped.Add(1)
	}
}

// Close waits for tracked side tasks.
//
// ok: untrackedgo
func (p *Proxy) Close() {
	p.side.Wait()
}
