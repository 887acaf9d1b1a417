// Package swallow holds service code whose callers need to learn that the
// work was interrupted rather than finished.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"
)

// ok: swallowcancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ---------------------------------------------------------------------------
// Node bootstrap.

// NodeBootstrapper brings a node up before it joins the cluster.
type NodeBootstrapper struct {
	probe        func(ctx context.Context) (bool, error)
	pollInterval time.Duration
	logger       *log.Logger
}

// WaitForAgent polls the local agent until it reports healthy. The caller
// joins the cluster once this returns nil.
// From: edgelesssys/constellation#1534
// bug: swallowcancel
func (b *NodeBootstrapper) WaitForAgent(ctx context.Context) error {
	for {
		ready, err := b.probe(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			b.logger.Printf("stopped waiting for agent: %v", err)
			return nil
		case err != nil:
			b.logger.Printf("agent not healthy yet: %v", err)
		case ready:
			return nil
		}
		if err := sleepCtx(ctx, b.pollInterval); err != nil {
			return err
		}
	}
}

// WaitForAgentNearMiss polls the local agent until it reports healthy. The
// caller joins the cluster once this returns nil.
// ok: swallowcancel
func (b *NodeBootstrapper) WaitForAgentNearMiss(ctx context.Context) error {
	for {
		ready, err := b.probe(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("waiting for agent: %w", err)
		case err != nil:
			b.logger.Printf("agent not healthy yet: %v", err)
		case ready:
			return nil
		}
		if err := sleepCtx(ctx, b.pollInterval); err != nil {
			return err
		}
	}
}

// ---------------------------------------------------------------------------
// Applying objects.

// Object is a manifest to apply.
type Object struct {
	Name string
	Body []byte
}

// ApplyEvent reports progress of one object.
type ApplyEvent struct {
	Object  string
	Applied bool
	Err     error
}

// ApplyClient applies one object.
type ApplyClient interface {
	Apply(ctx context.Context, obj Object) error
}

// Applier applies object sets and reports progress through onEvent.
type Applier struct {
	client  ApplyClient
	onEvent func(ApplyEvent)
}

// Run applies objs in order, reporting an event per object, and returns once
// all of them are applied.
// From: kubernetes-sigs/cli-utils#439
// bug: swallowcancel
func (a *Applier) Run(ctx context.Context, objs []Object) error {
	for _, obj := range objs {
		select {
		case <-ctx.Done():
			return nil
		default:
		}
		if err := a.client.Apply(ctx, obj); err != nil {
			a.onEvent(ApplyEvent{Object: obj.Name, Err: err})
			return fmt.Errorf("apply %s: %w", obj.Name, err)
		}
		a.onEvent(ApplyEvent{Object: obj.Name, Applied: true})
	}
	return nil
}

// RunNearMiss applies objs in order, reporting an event per object, and
// returns once all of them are applied.
// ok: swallowcancel
func (a *Applier) RunNearMiss(ctx context.Context, objs []Object) error {
	for _, obj := range objs {
		select {
		case <-ctx.Done():
			a.onEvent(ApplyEvent{Object: obj.Name, Err: ctx.Err()})
			return ctx.Err()
		default:
		}
		if err := a.client.Apply(ctx, obj); err != nil {
			a.onEvent(ApplyEvent{Object: obj.Name, Err: err})
			return fmt.Errorf("apply %s: %w", obj.Name, err)
		}
		a.onEvent(ApplyEvent{Object: obj.Name, Applied: true})
	}
	return nil
}

// ---------------------------------------------------------------------------
// Load generation.

// Limiter paces callers.
type Limiter interface {
	Wait(ctx context.Context) error
}

// KVPutter writes one key.
type KVPutter interface {
	Put(ctx context.Context, key string, val []byte) (revision int64, err error)
}

// Stresser writes keys at a fixed rate. The tester compares the revision it
// reached with the cluster's after Stress returns nil.
type Stresser struct {
	limiter  Limiter
	kv       KVPutter
	keys     int
	revision int64
	failures int
}

// Stress issues n puts at the limiter's rate and returns how many succeeded.
// From: etcd-io/etcd#5931
// bug: swallowcancel
func (s *Stresser) Stress(ctx context.Context, n int) (int, error) {
	success := 0
	for i := 0; i < n; i++ {
		if err := s.limiter.Wait(ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				return success, nil
			}
			return success, fmt.Errorf("rate limiter: %w", err)
		}
		key := fmt.Sprintf("stress/%d", i%s.keys)
		rev, err := s.kv.Put(ctx, key, []byte("v"))
		if err != nil {
			if ctx.Err() != nil {
				return success, ctx.Err()
			}
			s.failures++
			continue
		}
		s.revision = rev
		success++
	}
	return success, nil
}

// StressNearMiss issues n puts at the limiter's rate and returns how many succeeded.
// ok: swallowcancel
func (s *Stresser) StressNearMiss(ctx context.Context, n int) (int, error) {
	success := 0
	for i := 0; i < n; i++ {
		if err := s.limiter.Wait(ctx); err != nil {
			return success, fmt.Errorf("rate limiter: %w", err)
		}
		key := fmt.Sprintf("stress/%d", i%s.keys)
		rev, err := s.kv.Put(ctx, key, []byte("v"))
		if err != nil {
			if ctx.Err() != nil {
				return success, ctx.Err()
			}
			s.failures++
			continue
		}
		s.revision = rev
		success++
	}
	return success, nil
}

// ---------------------------------------------------------------------------
// Blocking queries.

// Service is a catalog entry.
type Service struct {
	Name string
	Addr string
}

// StateStore is an in-memory catalog; changed is closed and replaced on
// every write.
type StateStore struct {
	mu       sync.Mutex
	index    uint64
	services []Service
	changed  chan struct{}
}

// ok: swallowcancel
func (s *StateStore) snapshot() (uint64, []Service, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Service, len(s.services))
	copy(out, s.services)
	return s.index, out, s.changed
}

// ok: swallowcancel
func waitChange(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BlockingGet returns the services once the catalog index moves past
// minIndex. The caller treats the returned index as the new minimum.
// From: hashicorp/go-memdb#38
// bug: swallowcancel
func (s *StateStore) BlockingGet(ctx context.Context, minIndex uint64) ([]Service, uint64, error) {
	idx, svcs, changed := s.snapshot()
	if idx > minIndex {
		return svcs, idx, nil
	}
	_ = waitChange(ctx, changed)
	idx, svcs, _ = s.snapshot()
	return svcs, idx, nil
}

// BlockingGetNearMiss returns the services once the catalog index moves past
// minIndex. The caller treats the returned index as the new minimum.
// ok: swallowcancel
func (s *StateStore) BlockingGetNearMiss(ctx context.Context, minIndex uint64) ([]Service, uint64, error) {
	idx, svcs, changed := s.snapshot()
	if idx > minIndex {
		return svcs, idx, nil
	}
	if err := waitChange(ctx, changed); err != nil {
		return nil, idx, err
	}
	idx, svcs, _ = s.snapshot()
	return svcs, idx, nil
}

// ---------------------------------------------------------------------------
// Delayed jobs.

// DelayedJob becomes runnable at NotBefore.
type DelayedJob struct {
	ID        string
	NotBefore time.Time
}

// DelayQueue promotes delayed jobs to the ready list.
type DelayQueue struct {
	mu    sync.Mutex
	ready []DelayedJob
	wake  chan struct{}
}

// ok: swallowcancel
func (q *DelayQueue) notify() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Promote waits until job may run and then moves it to the ready list.
// From: taubyte/tau#151
// bug: swallowcancel
func (q *DelayQueue) Promote(ctx context.Context, job DelayedJob) error {
	if job.ID == "" {
		return errors.New("job without id")
	}
	if d := time.Until(job.NotBefore); d > 0 {
		sleepCtx(ctx, d)
	}
	q.mu.Lock()
	q.ready = append(q.ready, job)
	q.mu.Unlock()
	q.notify()
	return nil
}

// PromoteNearMiss waits until job may run and then moves it to the ready list.
// ok: swallowcancel
func (q *DelayQueue) PromoteNearMiss(ctx context.Context, job DelayedJob) error {
	if job.ID == "" {
		return errors.New("job without id")
	}
	if d := time.Until(job.NotBefore); d > 0 {
		if err := sleepCtx(ctx, d); err != nil {
			return fmt.Errorf("delay of job %s: %w", job.ID, err)
		}
	}
	q.mu.Lock()
	q.ready = append(q.ready, job)
	q.mu.Unlock()
	q.notify()
	return nil
}
