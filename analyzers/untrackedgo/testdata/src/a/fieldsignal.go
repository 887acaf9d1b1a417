package a

import (
	"context"
	"sync"
)

// A supervisor whose tunnel goroutines report on a field channel that its
// run loop receives from and counts (cloudflared's Supervisor): a method
// goroutine that reports on a field signals what a literal doing the same
// would.
type supervisor struct {
	results chan error
	active  int
}

func (s *supervisor) serve(ctx context.Context, i int) error { return ctx.Err() }

func (s *supervisor) startTunnel(ctx context.Context, i int) {
	err := s.serve(ctx, i)
	s.results <- err
}

// startTunnelVia reports through a helper that sends on the field.
func (s *supervisor) startTunnelVia(ctx context.Context, i int) {
	s.report(s.serve(ctx, i))
}

func (s *supervisor) report(err error) { s.results <- err }

func (s *supervisor) startAll(ctx context.Context, n int) {
	for i := range n {
		go s.startTunnel(ctx, i)
	}
	go s.startTunnelVia(ctx, n)
	s.active = n + 1
}

func (s *supervisor) startAllLit(ctx context.Context, n int) {
	for i := range n {
		go func() { s.results <- s.serve(ctx, i) }()
	}
	s.active = n
}

// Near-miss positive: a method goroutine that reports nothing is cut off
// when startQuiet's caller cancels ctx.
func (s *supervisor) serveQuiet(ctx context.Context, i int) { _ = s.serve(ctx, i) }

func (s *supervisor) startQuiet(ctx context.Context, n int) error {
	for i := range n {
		go s.serveQuiet(ctx, i) // want `goroutine uses the context ctx of startQuiet, which can return without waiting for it`
	}
	return nil
}

// A pool that counts its consumers through a small tracker type over a
// WaitGroup field, and keeps their context's cancel in a field: Stop
// cancels and waits.
type tracker struct{ wg sync.WaitGroup }

func (t *tracker) enter() { t.wg.Add(1) }
func (t *tracker) leave() { t.wg.Done() }
func (t *tracker) wait()  { t.wg.Wait() }

type pool struct {
	work    func(ctx context.Context, id int)
	cancel  context.CancelFunc
	running tracker
}

func (p *pool) Start(ctx context.Context, n int) {
	ctx, p.cancel = context.WithCancel(ctx)
	for i := 0; i < n; i++ {
		p.running.enter()
		go func() {
			defer p.running.leave()
			p.work(ctx, i)
		}()
	}
}

func (p *pool) Stop() {
	p.cancel()
	p.running.wait()
}

// Near-miss positive: the same pool whose consumers nothing counts.
type loosePool struct {
	work func(ctx context.Context, id int)
}

func (p *loosePool) Start(ctx context.Context, n int) error {
	for i := 0; i < n; i++ {
		go func() { // want `goroutine uses the context ctx of Start, which can return without waiting for it`
			p.work(ctx, i)
		}()
	}
	return nil
}

// The same pool registering each consumer from inside it: Stop's wait can
// run before the consumer has entered.
type racyPool struct {
	work    func(ctx context.Context, id int)
	cancel  context.CancelFunc
	running tracker
}

func (p *racyPool) Start(ctx context.Context, n int) {
	ctx, p.cancel = context.WithCancel(ctx)
	for i := 0; i < n; i++ {
		go func() {
			p.running.enter() // want `p.running.enter\(\), which calls WaitGroup.Add, inside the goroutine it counts races with the group's Wait`
			defer p.running.leave()
			p.work(ctx, i)
		}()
	}
}

func (p *racyPool) Stop() {
	p.cancel()
	p.running.wait()
}

// Near-miss: a helper that counts the goroutine it starts itself, called
// from a watcher goroutine (a reconnect): its Add is not the caller's.
type feed struct {
	wg   sync.WaitGroup
	quit chan struct{}
}

func (f *feed) read() {}

func (f *feed) reconnect() {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.read()
	}()
}

func (f *feed) Watch(ctx context.Context, stale <-chan struct{}) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			select {
			case <-f.quit:
				return
			case <-stale:
				f.reconnect()
			}
		}
	}()
}

func (f *feed) Close() {
	close(f.quit)
	f.wg.Wait()
}

// Near-miss: a helper whose Add counts the waiters of a value it makes
// itself (singleflight's Do), called from goroutines a WaitGroup joins.
type flightCall struct {
	wg  sync.WaitGroup
	val int
}

type flightGroup struct {
	mu sync.Mutex
	m  map[string]*flightCall
}

func (g *flightGroup) Do(key string, fn func() int) int {
	g.mu.Lock()
	if c, ok := g.m[key]; ok {
		g.mu.Unlock()
		c.wg.Wait()
		return c.val
	}
	c := new(flightCall)
	c.wg.Add(1)
	g.m[key] = c
	g.mu.Unlock()
	g.finish(c, fn)
	return c.val
}

func (g *flightGroup) finish(c *flightCall, fn func() int) {
	defer c.wg.Done()
	c.val = fn()
}

func fetchShared(g *flightGroup, keys []string) {
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.Do(k, func() int { return len(k) })
		}()
	}
	wg.Wait()
}
