// Package untracked holds go statements whose goroutines may outlive their owner.
package untracked

import (
	"context"
	"errors"
	"iter"
	"log"
	"net"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---- yproxy-style instance ----

type Instance struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	handle func(ctx context.Context, c net.Conn)
}

// Helper.
//
// ok: untrackedgo
func (i *Instance) serve(ctx context.Context, l net.Listener) {
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		i.handle(ctx, c)
		_ = c.Close()
	}
}

// Run starts one accept loop per listener.
// From: open-gpdb/yproxy#208
// the accept-loop goroutines are not tracked, so Shutdown cancels and returns while they are still serving and closing connections
//
// bug: untrackedgo
func (i *Instance) Run(ctx context.Context, listeners []net.Listener) {
	ctx, i.cancel = context.WithCancel(ctx)
	for _, l := range listeners {
		go i.serve(ctx, l)
	}
}

// Shutdown stops the instance.
//
// ok: untrackedgo
func (i *Instance) Shutdown() { i.cancel() }

// RunNearMiss starts one accept loop per listener.
// From: open-gpdb/yproxy#208
// each accept loop is counted in i.wg and ShutdownNearMiss waits for them after cancelling
//
// ok: untrackedgo
func (i *Instance) RunNearMiss(ctx context.Context, listeners []net.Listener) {
	ctx, i.cancel = context.WithCancel(ctx)
	for _, l := range listeners {
		i.wg.Add(1)
		go func() {
			defer i.wg.Done()
			i.serve(ctx, l)
		}()
	}
}

// ShutdownNearMiss stops the instance and waits for its accept loops.
//
// ok: untrackedgo
func (i *Instance) ShutdownNearMiss() {
	i.cancel()
	i.wg.Wait()
}

// ---- openziti-style session refresh ----

type zitiContext struct {
	mu          sync.Mutex
	session     string
	login       func() (string, error)
	refresh     func(string) (string, error)
	interval    time.Duration
	closeNotify chan struct{}
	wg          sync.WaitGroup
}

// Helper.
//
// ok: untrackedgo
func (c *zitiContext) refreshSessions() {
	for {
		time.Sleep(c.interval)
		c.mu.Lock()
		if s, err := c.refresh(c.session); err == nil {
			c.session = s
		}
		c.mu.Unlock()
	}
}

// Authenticate logs in and starts the session refresher.
// From: openziti/sdk-golang#138
// the refresher goroutine loops forever with no stop signal, so it keeps refreshing sessions after the context is closed
//
// bug: untrackedgo
func (c *zitiContext) Authenticate() error {
	s, err := c.login()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.session = s
	c.mu.Unlock()
	go c.refreshSessions()
	return nil
}

// Helper.
//
// ok: untrackedgo
func (c *zitiContext) refreshSessionsUntilClosed() {
	defer c.wg.Done()
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-c.closeNotify:
			return
		case <-t.C:
		}
		c.mu.Lock()
		if s, err := c.refresh(c.session); err == nil {
			c.session = s
		}
		c.mu.Unlock()
	}
}

// AuthenticateNearMiss logs in and starts the session refresher.
// From: openziti/sdk-golang#138
// the refresher is counted in c.wg and exits on closeNotify, which Close closes before waiting
//
// ok: untrackedgo
func (c *zitiContext) AuthenticateNearMiss() error {
	s, err := c.login()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.session = s
	c.mu.Unlock()
	c.wg.Add(1)
	go c.refreshSessionsUntilClosed()
	return nil
}

// Close stops the refresher and waits for it.
//
// ok: untrackedgo
func (c *zitiContext) Close() error {
	close(c.closeNotify)
	c.wg.Wait()
	return nil
}

// ---- okteto-style up command ----

type UpContext struct {
	forward  func(ctx context.Context) error
	logs     func(ctx context.Context) error
	waitSync func(ctx context.Context) error
}

// Activate starts port forwarding and log streaming, then waits for the file sync.
// From: okteto/okteto#130
// the forwarder and log-streamer goroutines are started on the caller's ctx and never joined, so they keep running after Activate returns with a sync error
//
// bug: untrackedgo
func (u *UpContext) Activate(ctx context.Context) error {
	go func() {
		if err := u.forward(ctx); err != nil {
			log.Printf("port forward: %v", err)
		}
	}()
	go func() {
		if err := u.logs(ctx); err != nil {
			log.Printf("logs: %v", err)
		}
	}()
	return u.waitSync(ctx)
}

// ActivateNearMiss starts port forwarding and log streaming, then waits for the file sync.
// From: okteto/okteto#130
// the helpers run in an errgroup on a context cancelled when the sync ends, and Wait joins them before returning
//
// ok: untrackedgo
func (u *UpContext) ActivateNearMiss(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return u.forward(gctx) })
	g.Go(func() error { return u.logs(gctx) })
	syncErr := u.waitSync(gctx)
	cancel()
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) && syncErr == nil {
		return err
	}
	return syncErr
}

// ---- logos-delivery-style generic worker pool ----

type Pool[T any] struct {
	queue   chan T
	workers int
	handle  func(context.Context, T)
	quit    chan struct{}
	wg      sync.WaitGroup
}

// Helper.
//
// ok: untrackedgo
func (p *Pool[T]) worker(ctx context.Context) {
	for {
		select {
		case <-p.quit:
			return
		case <-ctx.Done():
			return
		case item := <-p.queue:
			p.handle(ctx, item)
		}
	}
}

// Start launches the workers.
// From: logos-messaging/logos-delivery-go#166
// the workers are not counted anywhere, so Stop closes quit and returns while a worker may still be inside handle
//
// bug: untrackedgo
func (p *Pool[T]) Start(ctx context.Context) {
	for i := 0; i < p.workers; i++ {
		go p.worker(ctx)
	}
}

// Stop signals the workers to exit.
//
// ok: untrackedgo
func (p *Pool[T]) Stop() { close(p.quit) }

// StartNearMiss launches the workers.
// From: logos-messaging/logos-delivery-go#166
// every worker is counted in p.wg and StopNearMiss waits for them
//
// ok: untrackedgo
func (p *Pool[T]) StartNearMiss(ctx context.Context) {
	for i := 0; i < p.workers; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.worker(ctx)
		}()
	}
}

// StopNearMiss signals the workers to exit and waits for them.
//
// ok: untrackedgo
func (p *Pool[T]) StopNearMiss() {
	close(p.quit)
	p.wg.Wait()
}

// ---- influxdb-style server ----

type Command struct{ Name string }

type Server struct {
	commands chan Command
	done     chan struct{}
	apply    func(Command)
	closeLog func() error
	wg       sync.WaitGroup
}

// Helper.
//
// ok: untrackedgo
func (s *Server) processCommands(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case c := <-s.commands:
			s.apply(c)
		}
	}
}

// Open starts the command processor.
// From: influxdata/influxdb#1558
// nothing joins the processor goroutine, so Close closes done and tears the log down while a command may still be applying
//
// bug: untrackedgo
func (s *Server) Open() error {
	s.done = make(chan struct{})
	go s.processCommands(s.done)
	return nil
}

// Close stops the processor and closes the log.
//
// ok: untrackedgo
func (s *Server) Close() error {
	close(s.done)
	return s.closeLog()
}

// OpenNearMiss starts the command processor.
// From: influxdata/influxdb#1558
// the processor is tracked in s.wg and CloseNearMiss waits for it before closing the log
//
// ok: untrackedgo
func (s *Server) OpenNearMiss() error {
	s.done = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.processCommands(s.done)
	}()
	return nil
}

// CloseNearMiss stops the processor, waits for it, and closes the log.
//
// ok: untrackedgo
func (s *Server) CloseNearMiss() error {
	close(s.done)
	s.wg.Wait()
	return s.closeLog()
}

// ---- nelm-style resource tracking over an iterator ----

type Resource struct{ Kind, Name string }

type Tracker struct {
	track func(ctx context.Context, r Resource) error
}

// TrackAll tracks every resource in parallel and returns the first failure.
// From: werf/nelm#379
// on the first failure TrackAll returns while the remaining tracking goroutines keep polling on the caller's ctx with nobody waiting for them
//
// bug: untrackedgo
func (t *Tracker) TrackAll(ctx context.Context, resources iter.Seq[Resource]) error {
	errs := make(chan error, 64)
	n := 0
	for r := range resources {
		n++
		go func() { errs <- t.track(ctx, r) }()
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

// TrackAllNearMiss tracks every resource in parallel and returns the first failure.
// From: werf/nelm#379
// the goroutines run on a context cancelled at the first failure and a WaitGroup is waited before returning
//
// ok: untrackedgo
func (t *Tracker) TrackAllNearMiss(ctx context.Context, resources iter.Seq[Resource]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for r := range resources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := t.track(ctx, r); err != nil {
				once.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// ---- suspicious but correct ----

// Compress runs the encoder in a goroutine and waits for it.
// the goroutine is joined through the done channel before Compress returns
//
// ok: untrackedgo
func Compress(src []byte, enc func([]byte) []byte) []byte {
	var out []byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		out = enc(src)
	}()
	<-done
	return out
}

type Heartbeat struct {
	cancel context.CancelFunc
	done   chan struct{}
	beat   func(context.Context)
}

// StartHeartbeat starts a heartbeat goroutine owned by the returned value.
// the goroutine stops on the derived context and Stop cancels it and waits for its done channel
//
// ok: untrackedgo
func StartHeartbeat(ctx context.Context, every time.Duration, beat func(context.Context)) *Heartbeat {
	ctx, cancel := context.WithCancel(ctx)
	h := &Heartbeat{cancel: cancel, done: make(chan struct{}), beat: beat}
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.beat(ctx)
			}
		}
	}()
	return h
}

// Stop cancels the heartbeat and waits for it.
//
// ok: untrackedgo
func (h *Heartbeat) Stop() {
	h.cancel()
	<-h.done
}

// FanOut runs fn for each key with bounded concurrency.
// a buffered channel bounds the goroutines and the WaitGroup joins them all before return
//
// ok: untrackedgo
func FanOut(ctx context.Context, keys []string, limit int, fn func(context.Context, string)) {
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(ctx, k)
		}()
	}
	wg.Wait()
}
