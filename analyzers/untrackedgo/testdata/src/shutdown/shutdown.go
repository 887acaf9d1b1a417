// Package shutdown holds shutdown methods that signal the type's
// goroutines and return without waiting for them, beside the type's own
// method that signals and waits.
package shutdown

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// consumer counts its shard goroutines in wg.
type consumer struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	fast   bool
}

func (c *consumer) Start(ctx context.Context, shards []string) {
	ctx, c.cancel = context.WithCancel(ctx)
	for _, s := range shards {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.consume(ctx, s)
		}()
	}
}

func (c *consumer) consume(ctx context.Context, shard string) { <-ctx.Done() }

// Shutdown cancels but returns at once; Drain is the type's own way.
func (c *consumer) Shutdown() {
	c.cancel() // want `Shutdown tells the type's goroutines to stop \(c.cancel\(\)\) but can return without waiting for them \(c.wg.Wait\(\)\), as Drain does: they may still be running after Shutdown has returned`
}

func (c *consumer) Drain() {
	c.cancel()
	c.wg.Wait()
}

// Close waits only when not asked to be fast: that path returns early.
func (c *consumer) Close() error {
	c.cancel() // want `Close tells the type's goroutines to stop \(c.cancel\(\)\) but can return without waiting for them`
	if c.fast {
		return nil
	}
	c.wg.Wait()
	return nil
}

// splitter splits stopping and waiting on purpose: Stop, then Wait.
type splitter struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (s *splitter) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		<-ctx.Done()
	}()
}

func (s *splitter) Stop() { s.cancel() }

func (s *splitter) Wait() { s.wg.Wait() }

// halves: StopAndWait calls Stop, which is the non-waiting half.
type halves struct {
	quit chan struct{}
	wg   sync.WaitGroup
}

func (h *halves) Start() {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		<-h.quit
	}()
}

func (h *halves) Stop() { close(h.quit) }

func (h *halves) StopAndWait() {
	h.Stop()
	h.wg.Wait()
}

// store's flusher closes runDone when it ends.
type store struct {
	closing, runDone chan struct{}
	interval         time.Duration
}

func openStore(d time.Duration) *store {
	s := &store{closing: make(chan struct{}), runDone: make(chan struct{}), interval: d}
	go s.run()
	return s
}

func (s *store) run() {
	defer close(s.runDone)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
	}
}

func (s *store) Close() error {
	close(s.closing) // want `Close tells the type's goroutines to stop \(close\(s.closing\)\) but can return without waiting for them to close runDone \(<-s.runDone\), as closeWaited does`
	return nil
}

func (s *store) closeWaited() error {
	close(s.closing)
	<-s.runDone
	return nil
}

// waitedStore waits through a helper method: not reported.
type waitedStore struct {
	closing, runDone chan struct{}
}

func (s *waitedStore) start() {
	go func() {
		defer close(s.runDone)
		<-s.closing
	}()
}

func (s *waitedStore) Close() error {
	close(s.closing)
	s.join()
	return nil
}

func (s *waitedStore) join() { <-s.runDone }

func (s *waitedStore) Shutdown(ctx context.Context) error {
	close(s.closing)
	select {
	case <-s.runDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// batcher runs its consumers on a group field.
type batcher[T any] struct {
	in chan T
	g  *errgroup.Group
}

func newBatcher[T any](ctx context.Context, n int) *batcher[T] {
	g, ctx := errgroup.WithContext(ctx)
	b := &batcher[T]{in: make(chan T), g: g}
	for range n {
		g.Go(func() error {
			for range b.in {
			}
			return ctx.Err()
		})
	}
	return b
}

func (b *batcher[T]) Close() error {
	close(b.in) // want `Close tells the type's goroutines to stop \(close\(b.in\)\) but can return without waiting for them \(b.g.Wait\(\)\), as flushAndClose does`
	return nil
}

func (b *batcher[T]) flushAndClose() error {
	close(b.in)
	return b.g.Wait()
}

// untracked types (no handle) are not this rule's: nothing to wait on.
type noHandle struct {
	cancel context.CancelFunc
}

func (n *noHandle) Start(ctx context.Context) {
	ctx, n.cancel = context.WithCancel(ctx)
	go func() { <-ctx.Done() }()
}

func (n *noHandle) Close() { n.cancel() }

// mixed starts one goroutine outside the WaitGroup: that goroutine is the
// finding, and a Stop that does not wait is its other half.
type mixed struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (m *mixed) run(ctx context.Context) { <-ctx.Done() }

func (m *mixed) Start(ctx context.Context) {
	ctx, m.cancel = context.WithCancel(ctx)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.run(ctx)
	}()
	go m.run(ctx) // want `goroutine started by Start is not counted in wg`
}

func (m *mixed) Stop() { m.cancel() }

func (m *mixed) StopWait() {
	m.cancel()
	m.wg.Wait()
}
