package untracked

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// UnboundedChan is a channel with an unbounded buffer between In and Out.
type UnboundedChan[T any] struct {
	In  chan<- T
	Out <-chan T
	in  chan T
	out chan T
	buf []T
}

// newUnbounded allocates the channel pair.
// ok: untrackedgo
func newUnbounded[T any](initCap int) *UnboundedChan[T] {
	in := make(chan T)
	out := make(chan T)
	return &UnboundedChan[T]{In: in, Out: out, in: in, out: out, buf: make([]T, 0, initCap)}
}

// process moves values from in to out, buffering without bound.
// It returns once in is closed and the buffer is drained.
// ok: untrackedgo
func (c *UnboundedChan[T]) process() {
	defer close(c.out)
	in := c.in
	for in != nil || len(c.buf) > 0 {
		var out chan T
		var next T
		if len(c.buf) > 0 {
			out = c.out
			next = c.buf[0]
		}
		select {
		case v, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			c.buf = append(c.buf, v)
		case out <- next:
			c.buf = c.buf[1:]
		}
	}
}

// processCtx is process that also stops when ctx is done.
// ok: untrackedgo
func (c *UnboundedChan[T]) processCtx(ctx context.Context) {
	defer close(c.out)
	in := c.in
	for in != nil || len(c.buf) > 0 {
		var out chan T
		var next T
		if len(c.buf) > 0 {
			out = c.out
			next = c.buf[0]
		}
		select {
		case <-ctx.Done():
			return
		case v, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			c.buf = append(c.buf, v)
		case out <- next:
			c.buf = c.buf[1:]
		}
	}
}

// NewUnboundedChan starts the buffering goroutine for a new channel.
// From: smallnest/chanx#13
// bug: untrackedgo
func NewUnboundedChan[T any](initCap int) *UnboundedChan[T] {
	c := newUnbounded[T](initCap)
	go c.process()
	return c
}

// NewUnboundedChanNearMiss ties the buffering goroutine to ctx.
// ok: untrackedgo
func NewUnboundedChanNearMiss[T any](ctx context.Context, initCap int) *UnboundedChan[T] {
	c := newUnbounded[T](initCap)
	go c.processCtx(ctx)
	return c
}

// ParallelMap applies fn to every item with one goroutine per item.
// From: nci/gsky#231
// bug: untrackedgo
func ParallelMap[T, R any](ctx context.Context, items []T, fn func(context.Context, T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	errc := make(chan error)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := fn(ctx, it)
			if err != nil {
				errc <- fmt.Errorf("item %d: %w", i, err)
				return
			}
			out[i] = r
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case err := <-errc:
		return nil, err
	case <-done:
		return out, nil
	}
}

// ParallelMapNearMiss buffers the error channel and waits for every worker.
// ok: untrackedgo
func ParallelMapNearMiss[T, R any](ctx context.Context, items []T, fn func(context.Context, T) (R, error)) ([]R, error) {
	out := make([]R, len(items))
	errc := make(chan error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := fn(ctx, it)
			if err != nil {
				errc <- fmt.Errorf("item %d: %w", i, err)
				return
			}
			out[i] = r
		}()
	}
	wg.Wait()
	close(errc)
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
