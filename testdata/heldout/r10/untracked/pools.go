package untracked

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Build pools.

// buildTask is one queued bundle build.
type buildTask struct {
	bundle string
	done   chan error
}

// BuildService builds policy bundles.
type BuildService struct {
	workers int
	build   func(ctx context.Context, bundle string) error
}

// BuildAll builds every bundle on a pool of s.workers workers and returns the joined failures.
// From: open-policy-agent/opa-control-plane#368
// bug: untrackedgo
func (s *BuildService) BuildAll(ctx context.Context, bundles []string) error {
	queue := make(chan buildTask)
	for i := 0; i < s.workers; i++ {
		go func() {
			for {
				t := <-queue
				t.done <- s.build(ctx, t.bundle)
			}
		}()
	}
	pending := make([]buildTask, 0, len(bundles))
	for _, b := range bundles {
		t := buildTask{bundle: b, done: make(chan error, 1)}
		select {
		case queue <- t:
			pending = append(pending, t)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var errs []error
	for _, t := range pending {
		if err := <-t.done; err != nil {
			errs = append(errs, fmt.Errorf("build %s: %w", t.bundle, err))
		}
	}
	return errors.Join(errs...)
}

// BuildAllNearMiss builds every bundle on a pool of s.workers workers and
// returns the joined failures. The queue is closed and the workers joined
// on every return.
// ok: untrackedgo
func (s *BuildService) BuildAllNearMiss(ctx context.Context, bundles []string) error {
	queue := make(chan buildTask)
	var wg sync.WaitGroup
	for i := 0; i < s.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range queue {
				t.done <- s.build(ctx, t.bundle)
			}
		}()
	}
	defer func() {
		close(queue)
		wg.Wait()
	}()
	pending := make([]buildTask, 0, len(bundles))
	for _, b := range bundles {
		t := buildTask{bundle: b, done: make(chan error, 1)}
		select {
		case queue <- t:
			pending = append(pending, t)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var errs []error
	for _, t := range pending {
		if err := <-t.done; err != nil {
			errs = append(errs, fmt.Errorf("build %s: %w", t.bundle, err))
		}
	}
	return errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Metrics reporting.

// CounterSink receives counter snapshots.
type CounterSink interface {
	Send(counts map[string]int64) error
}

// MetricsReporter buffers toggle counters and sends them periodically.
type MetricsReporter struct {
	mu       sync.Mutex
	counts   map[string]int64
	sink     CounterSink
	interval time.Duration
	logger   *log.Logger
}

// Count adds one evaluation of name.
// ok: untrackedgo
func (m *MetricsReporter) Count(name string) {
	m.mu.Lock()
	m.counts[name]++
	m.mu.Unlock()
}

// ok: untrackedgo
func (m *MetricsReporter) send() {
	m.mu.Lock()
	snap := m.counts
	m.counts = make(map[string]int64, len(snap))
	m.mu.Unlock()
	if len(snap) == 0 {
		return
	}
	if err := m.sink.Send(snap); err != nil {
		m.logger.Printf("send metrics: %v", err)
	}
}

// Start launches the loop that sends the counters every interval and once
// more when stop is called.
// From: Unleash/unleash-go-sdk#269
// bug: untrackedgo
func (m *MetricsReporter) Start() (stop func()) {
	closing := make(chan struct{})
	go func() {
		t := time.NewTicker(m.interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.send()
			case <-closing:
				m.send()
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(closing) })
	}
}

// StartNearMiss launches the loop that sends the counters every interval and
// once more when stop is called; stop returns after the final send.
// ok: untrackedgo
func (m *MetricsReporter) StartNearMiss() (stop func()) {
	closing := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(m.interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.send()
			case <-closing:
				m.send()
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(closing) })
		<-done
	}
}

// ---------------------------------------------------------------------------
// Job managers.

// Job is one unit of queued work.
type Job struct {
	ID      string
	Payload []byte
}

// Fetcher pulls jobs from the broker into out until ctx ends or quit is closed.
type Fetcher interface {
	Fetch(ctx context.Context, out chan<- Job, quit <-chan struct{})
}

// Manager runs a fetcher and a set of workers. Quit closes quit and waits on wg.
type Manager struct {
	fetcher     Fetcher
	concurrency int
	jobs        chan Job
	quit        chan struct{}
	quitOnce    sync.Once
	wg          sync.WaitGroup
	process     func(ctx context.Context, j Job)
}

// Start launches the fetcher and the workers that process what it fetches.
// From: jrallison/go-workers#56
// bug: untrackedgo
func (m *Manager) Start(ctx context.Context) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.fetcher.Fetch(ctx, m.jobs, m.quit)
	}()
	for i := 0; i < m.concurrency; i++ {
		go func() {
			for j := range m.jobs {
				m.process(ctx, j)
			}
		}()
	}
}

// StartNearMiss launches the fetcher and the workers that process what it
// fetches. The fetcher closes jobs when it stops, which ends the workers,
// and all of them are tracked by wg.
// ok: untrackedgo
func (m *Manager) StartNearMiss(ctx context.Context) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(m.jobs)
		m.fetcher.Fetch(ctx, m.jobs, m.quit)
	}()
	for i := 0; i < m.concurrency; i++ {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			for j := range m.jobs {
				m.process(ctx, j)
			}
		}()
	}
}

// Quit stops fetching and waits for the manager's goroutines.
// ok: untrackedgo
func (m *Manager) Quit() {
	m.quitOnce.Do(func() { close(m.quit) })
	m.wg.Wait()
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// Resolver looks names up.
type Resolver interface {
	Lookup(ctx context.Context, name string) ([]string, error)
}

// ResolveAll looks every name up concurrently. The group's goroutines are
// joined by g.Wait on every path, including the early failure.
// ok: untrackedgo
func ResolveAll(ctx context.Context, r Resolver, names []string) (map[string][]string, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	out := make(map[string][]string, len(names))
	for _, name := range names {
		g.Go(func() error {
			addrs, err := r.Lookup(gctx, name)
			if err != nil {
				return fmt.Errorf("lookup %s: %w", name, err)
			}
			mu.Lock()
			out[name] = addrs
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// CompressWithDeadline runs compress in a goroutine so that a deadline can
// interrupt the wait; the goroutine is still received from on the ctx path,
// after compress has seen the same cancellation.
// ok: untrackedgo
func CompressWithDeadline(ctx context.Context, data []byte, compress func(ctx context.Context, b []byte) ([]byte, error)) ([]byte, error) {
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := compress(ctx, data)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		r := <-done
		if r.err == nil {
			r.err = ctx.Err()
		}
		return nil, r.err
	}
}

// EchoServer serves connections, one goroutine per connection.
type EchoServer struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	handle func(c net.Conn)
}

// Serve accepts connections until the listener is closed. Every connection
// goroutine is registered in wg before it starts, and Close waits for them.
// ok: untrackedgo
func (s *EchoServer) Serve() error {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			s.handle(c)
		}()
	}
}

// Close stops accepting, closes open connections and waits for their goroutines.
// ok: untrackedgo
func (s *EchoServer) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
