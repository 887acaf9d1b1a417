package lease

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

var errTooManyWaiters = errors.New("semaphore: too many waiters")

// Weighted is a weighted semaphore with a bound on queued waiters.
type Weighted struct {
	size       int64
	cur        int64
	maxWaiters int
	mu         sync.Mutex
	waiters    list.List
}

type waiter struct {
	n     int64
	ready chan struct{}
}

// NewWeighted returns a semaphore of the given size.
// ok: leaseleak
func NewWeighted(n int64, maxWaiters int) *Weighted {
	return &Weighted{size: n, maxWaiters: maxWaiters}
}

// Acquire takes n units, waiting until they are free or ctx ends. The
// too-many-waiters branch returns with s.mu still held, so every later
// Acquire and Release blocks forever.
// From: letsencrypt/boulder#7272
// bug: leaseleak
func (s *Weighted) Acquire(ctx context.Context, n int64) error {
	s.mu.Lock()
	if s.size-s.cur >= n && s.waiters.Len() == 0 {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	if s.maxWaiters > 0 && s.waiters.Len() >= s.maxWaiters {
		return errTooManyWaiters
	}
	ready := make(chan struct{})
	elem := s.waiters.PushBack(waiter{n: n, ready: ready})
	s.mu.Unlock()
	return s.wait(ctx, elem, ready)
}

// AcquireNearMiss unlocks on the too-many-waiters branch as well.
// ok: leaseleak
func (s *Weighted) AcquireNearMiss(ctx context.Context, n int64) error {
	s.mu.Lock()
	if s.size-s.cur >= n && s.waiters.Len() == 0 {
		s.cur += n
		s.mu.Unlock()
		return nil
	}
	if s.maxWaiters > 0 && s.waiters.Len() >= s.maxWaiters {
		s.mu.Unlock()
		return errTooManyWaiters
	}
	ready := make(chan struct{})
	elem := s.waiters.PushBack(waiter{n: n, ready: ready})
	s.mu.Unlock()
	return s.wait(ctx, elem, ready)
}

// wait blocks until the waiter is granted or ctx ends.
// ok: leaseleak
func (s *Weighted) wait(ctx context.Context, elem *list.Element, ready chan struct{}) error {
	select {
	case <-ctx.Done():
		err := ctx.Err()
		s.mu.Lock()
		select {
		case <-ready:
			// Granted after cancellation: give the units back.
			s.cur -= elem.Value.(waiter).n
			s.notifyLocked()
		default:
			s.waiters.Remove(elem)
			s.notifyLocked()
		}
		s.mu.Unlock()
		return err
	case <-ready:
		return nil
	}
}

// Release returns n units and wakes waiters that now fit.
// ok: leaseleak
func (s *Weighted) Release(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur -= n
	s.notifyLocked()
}

// notifyLocked grants queued waiters in order while they fit. s.mu must
// be held.
// ok: leaseleak
func (s *Weighted) notifyLocked() {
	for {
		front := s.waiters.Front()
		if front == nil {
			return
		}
		w := front.Value.(waiter)
		if s.size-s.cur < w.n {
			return
		}
		s.cur += w.n
		s.waiters.Remove(front)
		close(w.ready)
	}
}
