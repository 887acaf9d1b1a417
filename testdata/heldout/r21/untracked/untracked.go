// Package untracked holds goroutines that nothing joins or bounds, so work
// outlives the component that started it.
package untracked

import (
	"context"
	"log"
	"runtime/debug"
	"sync"
	"time"
)

// MetaStore is the raft-backed metadata store of a node.
type MetaStore interface {
	Apply(ctx context.Context, cmd []byte) error
	Close() error
}

// Node runs the control-plane seeding and shard-formation loops.
type Node struct {
	meta   MetaStore
	seeds  [][]byte
	period time.Duration
}

// seedLoop applies the seed commands until ctx ends.
//
// ok: untrackedgo
func (n *Node) seedLoop(ctx context.Context) {
	t := time.NewTicker(n.period)
	defer t.Stop()
	for {
		for _, cmd := range n.seeds {
			if err := n.meta.Apply(ctx, cmd); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Printf("seed apply: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// formLoop proposes shard formation until ctx ends.
//
// ok: untrackedgo
func (n *Node) formLoop(ctx context.Context) {
	t := time.NewTicker(n.period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := n.meta.Apply(ctx, []byte("form-shards")); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Printf("shard formation: %v", err)
			}
		}
	}
}

// Serve runs the node's background loops until ctx ends, then closes the
// metadata store.
// From: rostamlabs/rostam#69
// the loops are only signalled; Serve closes meta while they can still be
// inside an Apply call
//
// bug: untrackedgo
func (n *Node) Serve(ctx context.Context) error {
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go n.seedLoop(loopCtx)
	go n.formLoop(loopCtx)

	<-ctx.Done()
	cancel()
	return n.meta.Close()
}

// ServeNearMiss runs the node's background loops until ctx ends and waits
// for them before closing the metadata store.
// From: rostamlabs/rostam#69
//
// ok: untrackedgo
func (n *Node) ServeNearMiss(ctx context.Context) error {
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { n.seedLoop(loopCtx) })
	wg.Go(func() { n.formLoop(loopCtx) })

	<-ctx.Done()
	cancel()
	wg.Wait()
	return n.meta.Close()
}

// AuditStore persists audit records.
type AuditStore interface {
	Write(ctx context.Context, rec string) error
}

// Server is the API server; baseCtx lives until Shutdown.
type Server struct {
	baseCtx context.Context
	stop    context.CancelFunc
	audit   AuditStore
	bg      sync.WaitGroup
}

// NewServer builds a server whose background work is bound to parent.
//
// ok: untrackedgo
func NewServer(parent context.Context, audit AuditStore) *Server {
	ctx, stop := context.WithCancel(parent)
	return &Server{baseCtx: ctx, stop: stop, audit: audit}
}

// goSafe runs fn in the background with panic recovery.
// From: SocialGouv/iterion#1474
// the goroutine is not registered anywhere, so Shutdown returns while an
// audit or token write is still in flight and the process exits through it
//
// bug: untrackedgo
func (s *Server) goSafe(name string, fn func(ctx context.Context)) {
	go func() {
		defer func() {
			if r := recover(); r != nil {
				log.Printf("background %s panicked: %v\n%s", name, r, debug.Stack())
			}
		}()
		fn(s.baseCtx)
	}()
}

// goSafeNearMiss runs fn in the background with panic recovery and
// registers it so Shutdown waits for it.
// From: SocialGouv/iterion#1474
//
// ok: untrackedgo
func (s *Server) goSafeNearMiss(name string, fn func(ctx context.Context)) {
	s.bg.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				log.Printf("background %s panicked: %v\n%s", name, r, debug.Stack())
			}
		}()
		fn(s.baseCtx)
	})
}

// RecordAudit writes rec in the background.
//
// ok: untrackedgo
func (s *Server) RecordAudit(rec string) {
	s.goSafeNearMiss("audit", func(ctx context.Context) {
		if err := s.audit.Write(ctx, rec); err != nil {
			log.Printf("audit write: %v", err)
		}
	})
}

// Shutdown cancels background work and waits for registered goroutines.
//
// ok: untrackedgo
func (s *Server) Shutdown() error {
	s.stop()
	s.bg.Wait()
	return nil
}

// Membership reports ring changes.
type Membership interface {
	Changes() <-chan struct{}
}

// PerNamespaceWorkerManager keeps per-namespace workers on the right hosts.
type PerNamespaceWorkerManager struct {
	membership Membership
	interval   time.Duration
	refresh    func(ctx context.Context)
}

// membershipLoop refreshes on every ring change until ctx ends.
//
// ok: untrackedgo
func (m *PerNamespaceWorkerManager) membershipLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.membership.Changes():
			m.refresh(ctx)
		}
	}
}

// periodicLoop refreshes on a fixed interval until ctx ends.
//
// ok: untrackedgo
func (m *PerNamespaceWorkerManager) periodicLoop(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.refresh(ctx)
		}
	}
}

// Start launches the background loops and returns the function that stops
// them.
// From: temporalio/temporal#10802
// the returned stop only cancels; it returns while both loops may still be
// running a refresh
//
// bug: untrackedgo
func (m *PerNamespaceWorkerManager) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go m.membershipLoop(ctx)
	go m.periodicLoop(ctx)
	return cancel
}

// StartNearMiss launches the background loops and returns a stop function
// that cancels them and waits for both to return.
// From: temporalio/temporal#10802
//
// ok: untrackedgo
func (m *PerNamespaceWorkerManager) StartNearMiss(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { m.membershipLoop(ctx) })
	wg.Go(func() { m.periodicLoop(ctx) })
	return func() {
		cancel()
		wg.Wait()
	}
}

// MemLimiter keeps GOMEMLIMIT in line with the cgroup limit.
type MemLimiter struct {
	mu      sync.Mutex
	ratio   float64
	limitFn func() (uint64, error)
	applied uint64
}

// refreshOnce reads the cgroup limit and applies it.
//
// ok: untrackedgo
func (l *MemLimiter) refreshOnce() {
	limit, err := l.limitFn()
	if err != nil {
		log.Printf("memlimit: %v", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.applied = uint64(float64(limit) * l.ratio)
	debug.SetMemoryLimit(int64(l.applied))
}

// NewMemLimiter applies the limit now and keeps refreshing it.
// From: KimMachineGun/automemlimit#29
// the refresh goroutine has no stop signal and nothing can join it, so it
// runs for the rest of the process even after the limiter is discarded
//
// bug: untrackedgo
func NewMemLimiter(ratio float64, every time.Duration, limitFn func() (uint64, error)) *MemLimiter {
	l := &MemLimiter{ratio: ratio, limitFn: limitFn}
	l.refreshOnce()
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for range t.C {
			l.refreshOnce()
		}
	}()
	return l
}

// NewMemLimiterNearMiss applies the limit now and refreshes it until ctx
// ends; the returned wait blocks until the refresh goroutine is gone.
// From: KimMachineGun/automemlimit#29
//
// ok: untrackedgo
func NewMemLimiterNearMiss(ctx context.Context, ratio float64, every time.Duration, limitFn func() (uint64, error)) (*MemLimiter, func()) {
	l := &MemLimiter{ratio: ratio, limitFn: limitFn}
	l.refreshOnce()
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
				l.refreshOnce()
			}
		}
	}()
	return l, func() { <-done }
}

// KV is the pebble-backed store shared by the workers.
type KV interface {
	Set(key, value []byte) error
	Close() error
}

// Engine runs data workers over a shared store.
type Engine struct {
	kv      KV
	workers int
	inbox   chan [2][]byte
}

// worker writes inbox entries until ctx ends.
//
// ok: untrackedgo
func (e *Engine) worker(ctx context.Context, id int) {
	for {
		select {
		case <-ctx.Done():
			return
		case kv := <-e.inbox:
			if err := e.kv.Set(kv[0], kv[1]); err != nil {
				log.Printf("worker %d: set: %v", id, err)
			}
		}
	}
}

// Start launches the workers and returns the shutdown function.
// From: QuilibriumNetwork/monorepo#379
// shutdown cancels the workers and closes the store at once, so a worker in
// the middle of Set writes to a closed store
//
// bug: untrackedgo
func (e *Engine) Start(ctx context.Context) (shutdown func() error) {
	ctx, cancel := context.WithCancel(ctx)
	for i := range e.workers {
		go e.worker(ctx, i)
	}
	return func() error {
		cancel()
		return e.kv.Close()
	}
}

// StartNearMiss launches the workers and returns a shutdown function that
// waits for them before closing the store.
// From: QuilibriumNetwork/monorepo#379
//
// ok: untrackedgo
func (e *Engine) StartNearMiss(ctx context.Context) (shutdown func() error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range e.workers {
		wg.Go(func() { e.worker(ctx, i) })
	}
	return func() error {
		cancel()
		wg.Wait()
		return e.kv.Close()
	}
}

// Event is a progress event from a build.
type Event struct {
	Vertex string
	Msg    string
}

// BuildClient runs builds and prints their progress.
type BuildClient struct {
	run   func(ctx context.Context, events chan<- Event) error
	print func(Event)
}

// Build runs one build while a goroutine prints its events.
// From: dagger/dagger#903
// when run fails Build returns without closing events or waiting, so the
// printer goroutine stays blocked on the channel for good
//
// bug: untrackedgo
func (c *BuildClient) Build(ctx context.Context) error {
	events := make(chan Event)
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range events {
			c.print(ev)
		}
	})
	if err := c.run(ctx, events); err != nil {
		return err
	}
	close(events)
	wg.Wait()
	return nil
}

// BuildNearMiss runs one build while a goroutine prints its events and
// always closes the channel and waits for the printer.
// From: dagger/dagger#903
//
// ok: untrackedgo
func (c *BuildClient) BuildNearMiss(ctx context.Context) error {
	events := make(chan Event)
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range events {
			c.print(ev)
		}
	})
	defer func() {
		close(events)
		wg.Wait()
	}()
	return c.run(ctx, events)
}
