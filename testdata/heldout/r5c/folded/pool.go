package folded

import (
	"context"
	"errors"
	"fmt"
)

// ErrCtxDone is returned when a pool wait is abandoned.
var ErrCtxDone = errors.New("pool: context done")

// Pool hands out a fixed set of reusable values.
type Pool[T any] struct {
	items chan T
}

// NewPool returns a pool holding items.
// ok: foldedtimeout
func NewPool[T any](items ...T) *Pool[T] {
	p := &Pool[T]{items: make(chan T, len(items))}
	for _, it := range items {
		p.items <- it
	}
	return p
}

// Put returns a value to the pool.
// ok: foldedtimeout
func (p *Pool[T]) Put(v T) {
	p.items <- v
}

// Get takes a value, waiting until one is returned. When ctx ends first it
// returns the package's own ErrCtxDone instead of ctx.Err(), so the caller
// cannot tell a deadline from a cancellation and
// errors.Is(err, context.DeadlineExceeded) is always false.
// From: marusama/semaphore#1
// bug: foldedtimeout
func (p *Pool[T]) Get(ctx context.Context) (T, error) {
	select {
	case v := <-p.items:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, ErrCtxDone
	}
}

// Take is the near-miss of Get: the abandoned wait reports both the pool
// sentinel and ctx.Err(), so either can be matched with errors.Is.
// From: marusama/semaphore#1
// ok: foldedtimeout
func (p *Pool[T]) Take(ctx context.Context) (T, error) {
	select {
	case v := <-p.items:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w: %w", ErrCtxDone, ctx.Err())
	}
}
