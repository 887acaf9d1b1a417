// Package untracked holds background-work code from a proxy's metrics
// registry, a consensus library, a query frontend, a functions runner, a
// network protocol engine and a payment-channel funding manager.
package untracked

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Metrics registry with runtime collectors

const statsRefreshDuration = 5 * time.Second

// Options selects which runtime collectors the registry runs.
type Options struct {
	EnableDebugGcMetrics bool
	EnableRuntimeMetrics bool
}

// CodaHale is a metrics registry with optional runtime collectors.
type CodaHale struct {
	mu      sync.Mutex
	gauges  map[string]float64
	quit    chan struct{}
	wg      sync.WaitGroup
	stopped sync.Once
}

// newRegistry allocates an empty registry.
//
// ok: untrackedgo
func newRegistry() *CodaHale {
	return &CodaHale{gauges: make(map[string]float64), quit: make(chan struct{})}
}

// set stores a gauge value.
//
// ok: untrackedgo
func (c *CodaHale) set(name string, v float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gauges[name] = v
}

// captureGCStatsOnce records garbage-collector statistics.
//
// ok: untrackedgo
func (c *CodaHale) captureGCStatsOnce() {
	var s debug.GCStats
	debug.ReadGCStats(&s)
	c.set("debug.GCStats.NumGC", float64(s.NumGC))
	c.set("debug.GCStats.PauseTotal", float64(s.PauseTotal))
}

// captureMemStatsOnce records allocator statistics.
//
// ok: untrackedgo
func (c *CodaHale) captureMemStatsOnce() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	c.set("runtime.MemStats.HeapAlloc", float64(m.HeapAlloc))
	c.set("runtime.NumGoroutine", float64(runtime.NumGoroutine()))
}

// collect calls capture every statsRefreshDuration until quit is closed.
//
// ok: untrackedgo
func (c *CodaHale) collect(capture func()) {
	defer c.wg.Done()
	t := time.NewTicker(statsRefreshDuration)
	defer t.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-t.C:
			capture()
		}
	}
}

// Close stops the collectors and waits for them to return.
//
// ok: untrackedgo
func (c *CodaHale) Close() {
	c.stopped.Do(func() { close(c.quit) })
	c.wg.Wait()
}

// NewCodaHale creates the registry and starts the enabled runtime collectors,
// each refreshing its statistics every few seconds.
//
// From: zalando/skipper#2505
// bug: untrackedgo
func NewCodaHale(o Options) *CodaHale {
	c := newRegistry()
	if o.EnableDebugGcMetrics {
		go func() {
			for range time.Tick(statsRefreshDuration) {
				c.captureGCStatsOnce()
			}
		}()
	}
	if o.EnableRuntimeMetrics {
		go func() {
			for range time.Tick(statsRefreshDuration) {
				c.captureMemStatsOnce()
			}
		}()
	}
	return c
}

// NewCodaHaleNearMiss creates the registry and starts the enabled runtime
// collectors; Close stops them and waits for them.
//
// ok: untrackedgo
func NewCodaHaleNearMiss(o Options) *CodaHale {
	c := newRegistry()
	if o.EnableDebugGcMetrics {
		c.wg.Add(1)
		go c.collect(c.captureGCStatsOnce)
	}
	if o.EnableRuntimeMetrics {
		c.wg.Add(1)
		go c.collect(c.captureMemStatsOnce)
	}
	return c
}

// Consensus server and peers

// Server is a consensus participant. Every goroutine it owns is registered
// in routineGroup, which Stop waits on.
type Server struct {
	mu           sync.Mutex
	stopped      chan struct{}
	routineGroup sync.WaitGroup
	peers        map[string]*Peer
	heartbeat    time.Duration
	send         func(peer string, term uint64) error
	term         uint64
}

// Peer is the server's view of one other participant.
type Peer struct {
	server   *Server
	name     string
	stopChan chan bool
}

// NewServer returns a server that sends heartbeats through send.
//
// ok: untrackedgo
func NewServer(heartbeat time.Duration, send func(string, uint64) error) *Server {
	return &Server{
		stopped:   make(chan struct{}),
		peers:     make(map[string]*Peer),
		heartbeat: heartbeat,
		send:      send,
	}
}

// AddPeer registers a peer and starts heartbeating it.
//
// ok: untrackedgo
func (s *Server) AddPeer(name string) *Peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := &Peer{server: s, name: name, stopChan: make(chan bool)}
	s.peers[name] = p
	return p
}

// currentTerm returns the server's term.
//
// ok: untrackedgo
func (s *Server) currentTerm() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term
}

// Stop signals every goroutine of the server to finish and waits for them.
//
// ok: untrackedgo
func (s *Server) Stop() {
	close(s.stopped)
	s.routineGroup.Wait()
}

// heartbeatLoop sends heartbeats to the peer until the peer or the server is
// stopped.
//
// ok: untrackedgo
func (p *Peer) heartbeatLoop() {
	t := time.NewTicker(p.server.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-p.stopChan:
			return
		case <-p.server.stopped:
			return
		case <-t.C:
			if err := p.server.send(p.name, p.server.currentTerm()); err != nil {
				log.Printf("heartbeat to %s failed: %v", p.name, err)
			}
		}
	}
}

// startHeartbeat starts the peer's heartbeat loop in the background.
//
// From: goraft/raft#211
// bug: untrackedgo
func (p *Peer) startHeartbeat() {
	p.stopChan = make(chan bool)
	go p.heartbeatLoop()
}

// startHeartbeatNearMiss starts the peer's heartbeat loop in the background
// as part of the server's routine group.
//
// ok: untrackedgo
func (p *Peer) startHeartbeatNearMiss() {
	p.stopChan = make(chan bool)
	p.server.routineGroup.Add(1)
	go func() {
		defer p.server.routineGroup.Done()
		p.heartbeatLoop()
	}()
}

// Query frontend split requests

// limitedRoundTripper fans a split query out to the downstream querier.
type limitedRoundTripper struct {
	next     http.RoundTripper
	maxParal int
}

// doOne sends one sub-request and reads its status.
//
// ok: untrackedgo
func (rt limitedRoundTripper) doOne(req *http.Request) (int, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("downstream returned %s", resp.Status)
	}
	return resp.StatusCode, nil
}

// Do sends every sub-request concurrently and returns their status codes in
// order, or the first failure.
//
// From: grafana/loki#9923
// bug: untrackedgo
func (rt limitedRoundTripper) Do(ctx context.Context, reqs []*http.Request) ([]int, error) {
	type result struct {
		i    int
		code int
		err  error
	}
	results := make(chan result, len(reqs))
	for i, r := range reqs {
		go func() {
			code, err := rt.doOne(r.WithContext(ctx))
			results <- result{i: i, code: code, err: err}
		}()
	}
	codes := make([]int, len(reqs))
	for range reqs {
		select {
		case res := <-results:
			if res.err != nil {
				return nil, res.err
			}
			codes[res.i] = res.code
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return codes, nil
}

// DoNearMiss sends the sub-requests with at most maxParal in flight and
// returns their status codes in order, or the first failure once every
// started request has returned.
//
// ok: untrackedgo
func (rt limitedRoundTripper) DoNearMiss(ctx context.Context, reqs []*http.Request) ([]int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(rt.maxParal)
	codes := make([]int, len(reqs))
	for i, r := range reqs {
		g.Go(func() error {
			code, err := rt.doOne(r.WithContext(gctx))
			codes[i] = code
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return codes, nil
}

// Async functions runner

// Task is a queued asynchronous function call.
type Task struct {
	ID    string
	Image string
}

// Queue hands out reserved tasks.
type Queue interface {
	Reserve(ctx context.Context) (*Task, error)
	Delete(ctx context.Context, t *Task) error
}

// AsyncRunner executes queued tasks.
type AsyncRunner struct {
	q      Queue
	run    func(ctx context.Context, t *Task) error
	logger *log.Logger
	idle   time.Duration
}

// runTask executes one task and removes it from the queue.
//
// ok: untrackedgo
func (a *AsyncRunner) runTask(ctx context.Context, t *Task) {
	if err := a.run(ctx, t); err != nil {
		a.logger.Printf("task %s failed: %v", t.ID, err)
		return
	}
	if err := a.q.Delete(ctx, t); err != nil {
		a.logger.Printf("delete task %s: %v", t.ID, err)
	}
}

// Run reserves tasks from the queue and executes each one in its own
// goroutine until ctx is done.
//
// From: iron-io/functions#125
// bug: untrackedgo
func (a *AsyncRunner) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		t, err := a.q.Reserve(ctx)
		if err != nil || t == nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(a.idle):
			}
			continue
		}
		go a.runTask(ctx, t)
	}
}

// RunNearMiss reserves tasks from the queue and executes each one in its own
// goroutine until ctx is done, then waits for the running tasks before it
// returns.
//
// ok: untrackedgo
func (a *AsyncRunner) RunNearMiss(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		t, err := a.q.Reserve(ctx)
		if err != nil || t == nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(a.idle):
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.runTask(ctx, t)
		}()
	}
}

// Network protocol engine

// Diagnostics is a snapshot of protocol counters.
type Diagnostics struct {
	Peers     int
	Broadcast int
}

// Protocol gossips transaction lists with peers.
type Protocol struct {
	interval time.Duration
	publish  func(Diagnostics)
	handle   func(ctx context.Context) error
	peers    func() int
}

// diagnosticsLoop publishes counters every interval until ctx is done.
//
// ok: untrackedgo
func (p *Protocol) diagnosticsLoop(ctx context.Context) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.publish(Diagnostics{Peers: p.peers()})
		}
	}
}

// listHandler processes incoming transaction lists until ctx is done.
//
// ok: untrackedgo
func (p *Protocol) listHandler(ctx context.Context) {
	for ctx.Err() == nil {
		if err := p.handle(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Printf("handling transaction list: %v", err)
		}
	}
}

// Start starts the diagnostics publisher and the list handler; both run
// until ctx is cancelled.
//
// From: nuts-foundation/nuts-node#1900
// bug: untrackedgo
func (p *Protocol) Start(ctx context.Context) error {
	if p.interval <= 0 {
		return errors.New("diagnostics interval must be positive")
	}
	go p.diagnosticsLoop(ctx)
	go p.listHandler(ctx)
	return nil
}

// ProtocolNearMiss gossips transaction lists with peers. It owns the context
// of its goroutines; Stop cancels it and waits for them.
type ProtocolNearMiss struct {
	Protocol
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start starts the diagnostics publisher and the list handler under a
// context derived from ctx; Stop ends them.
//
// ok: untrackedgo
func (p *ProtocolNearMiss) Start(ctx context.Context) error {
	if p.interval <= 0 {
		return errors.New("diagnostics interval must be positive")
	}
	ctx, p.cancel = context.WithCancel(ctx)
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		p.diagnosticsLoop(ctx)
	}()
	go func() {
		defer p.wg.Done()
		p.listHandler(ctx)
	}()
	return nil
}

// Stop cancels the protocol's goroutines and waits for them to return.
//
// ok: untrackedgo
func (p *ProtocolNearMiss) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

// Channel funding manager

// OpenChannelMsg is a remote peer's request to open a channel.
type OpenChannelMsg struct {
	PeerID   string
	Capacity int64
}

// FundingManager negotiates channel openings. Its goroutines are tracked by
// wg; Stop closes quit and waits on wg.
type FundingManager struct {
	fundingMsgs chan OpenChannelMsg
	quit        chan struct{}
	wg          sync.WaitGroup
	sem         chan struct{}
	negotiate   func(msg OpenChannelMsg, quit <-chan struct{}) error
}

// NewFundingManager returns a manager that runs at most maxPending
// negotiations at a time.
//
// ok: untrackedgo
func NewFundingManager(maxPending int, negotiate func(OpenChannelMsg, <-chan struct{}) error) *FundingManager {
	return &FundingManager{
		fundingMsgs: make(chan OpenChannelMsg),
		quit:        make(chan struct{}),
		sem:         make(chan struct{}, maxPending),
		negotiate:   negotiate,
	}
}

// Start runs the coordinator loop.
//
// ok: untrackedgo
func (f *FundingManager) Start() {
	f.wg.Add(1)
	go f.reservationCoordinator()
}

// Stop closes quit and waits for the manager's goroutines.
//
// ok: untrackedgo
func (f *FundingManager) Stop() {
	close(f.quit)
	f.wg.Wait()
}

// handleFundingOpen negotiates one channel opening.
//
// ok: untrackedgo
func (f *FundingManager) handleFundingOpen(msg OpenChannelMsg) {
	if err := f.negotiate(msg, f.quit); err != nil {
		log.Printf("funding with %s failed: %v", msg.PeerID, err)
	}
}

// reservationCoordinator receives open-channel requests and negotiates each
// of them concurrently until the manager quits.
//
// From: lightningnetwork/lnd#26
// bug: untrackedgo
func (f *FundingManager) reservationCoordinator() {
	defer f.wg.Done()
	for {
		select {
		case msg := <-f.fundingMsgs:
			go f.handleFundingOpen(msg)
		case <-f.quit:
			return
		}
	}
}

// reservationCoordinatorNearMiss receives open-channel requests and
// negotiates each of them concurrently, at most cap(sem) at a time, until the
// manager quits; the negotiations are part of the manager's wait group.
//
// ok: untrackedgo
func (f *FundingManager) reservationCoordinatorNearMiss() {
	defer f.wg.Done()
	for {
		select {
		case msg := <-f.fundingMsgs:
			select {
			case f.sem <- struct{}{}:
			case <-f.quit:
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer func() { <-f.sem }()
				f.handleFundingOpen(msg)
			}()
		case <-f.quit:
			return
		}
	}
}

// Goroutines joined by their starters

// ResolveAll resolves every name concurrently and collects exactly one
// answer per goroutine before returning.
//
// ok: untrackedgo
func ResolveAll(ctx context.Context, names []string, resolve func(context.Context, string) (string, error)) (map[string]string, error) {
	type answer struct {
		name, addr string
		err        error
	}
	answers := make(chan answer)
	for _, n := range names {
		go func() {
			addr, err := resolve(ctx, n)
			answers <- answer{name: n, addr: addr, err: err}
		}()
	}
	out := make(map[string]string, len(names))
	var errs []error
	for range names {
		a := <-answers
		if a.err != nil {
			errs = append(errs, fmt.Errorf("resolve %s: %w", a.name, a.err))
			continue
		}
		out[a.name] = a.addr
	}
	return out, errors.Join(errs...)
}

// WithWatchdog runs work while a watchdog goroutine logs a warning each time
// work exceeds another multiple of warnAfter. The watchdog is stopped and
// awaited before WithWatchdog returns.
//
// ok: untrackedgo
func WithWatchdog(ctx context.Context, name string, warnAfter time.Duration, work func(context.Context) error) error {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(warnAfter)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				log.Printf("%s still running after more than %s", name, warnAfter)
			}
		}
	}()
	err := work(ctx)
	close(stop)
	<-done
	return err
}

// StartPrefetch begins warming the cache in the background and returns a
// function the caller must call to wait for the warm-up and get its result.
//
// ok: untrackedgo
func StartPrefetch(ctx context.Context, keys []string, warm func(context.Context, string) error) (wait func() error) {
	g, gctx := errgroup.WithContext(ctx)
	for _, k := range keys {
		g.Go(func() error { return warm(gctx, k) })
	}
	return g.Wait
}
