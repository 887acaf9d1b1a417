// Package condwait holds loops that wait on a sync.Cond and test a
// context.
package condwait

import (
	"context"
	"sync"
)

type checkpoint struct{ size uint64 }

type awaiter struct {
	mu   sync.Mutex
	cond *sync.Cond
	cp   checkpoint
}

// Await tests ctx only after a wake-up: if nothing is published, it waits
// forever after ctx is done.
func (a *awaiter) Await(ctx context.Context, idx uint64) (checkpoint, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.cp.size <= idx {
		if err := ctx.Err(); err != nil {
			return checkpoint{}, err
		}
		a.cond.Wait() // want `a.cond.Wait does not return when ctx is canceled: the loop tests ctx only after a Broadcast or Signal wakes it, so once ctx is done it keeps waiting until another goroutine happens to, and forever if none does`
	}
	return a.cp, nil
}

// AwaitWoken broadcasts when ctx ends.
func (a *awaiter) AwaitWoken(ctx context.Context, idx uint64) (checkpoint, error) {
	stop := context.AfterFunc(ctx, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.cp.size <= idx {
		if err := ctx.Err(); err != nil {
			return checkpoint{}, err
		}
		a.cond.Wait()
	}
	return a.cp, nil
}

type queue struct {
	mu    sync.Mutex
	ready sync.Cond
	items []int
}

func (q *queue) wake() {
	q.mu.Lock()
	q.ready.Broadcast()
	q.mu.Unlock()
}

// Watch registers a wake-up for its own context's end.
func (q *queue) Watch(ctx context.Context) { context.AfterFunc(ctx, q.wake) }

// Pop is not woken by Watch's AfterFunc, which answers another context.
func (q *queue) Pop(ctx context.Context) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		q.ready.Wait() // want `q.ready.Wait does not return when ctx is canceled`
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, nil
}

type pool struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int
}

// Get never looks at ctx in its loop: the caller's context does not
// claim to end the wait (a plain blocking Get).
func (p *pool) Get(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.free == 0 {
		p.cond.Wait()
	}
	p.free--
}

// PopWoken registers the package's wake-up for its own context.
func (q *queue) PopWoken(ctx context.Context) (int, error) {
	defer context.AfterFunc(ctx, q.wake)()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		q.ready.Wait()
	}
	v := q.items[0]
	q.items = q.items[1:]
	return v, nil
}

// PopWatched wakes the queue from a goroutine once ctx is done.
func (q *queue) PopWatched(ctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			q.wake()
		case <-done:
		}
	}()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		q.ready.Wait()
	}
	return nil
}
