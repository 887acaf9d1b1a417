// Package errgroup is a stub of golang.org/x/sync/errgroup for the corpus.
package errgroup

import (
	"context"
	"sync"
)

// A Group is a collection of goroutines working on subtasks.
type Group struct {
	cancel  func(error)
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
}

// WithContext returns a new Group and an associated Context.
// ok: untrackedgo
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{cancel: cancel}, ctx
}

// Wait blocks until all calls from Go have returned, then returns the first error.
// ok: untrackedgo
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}

// Go calls f in a new goroutine.
// ok: untrackedgo
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.errOnce.Do(func() {
				g.err = err
				if g.cancel != nil {
					g.cancel(g.err)
				}
			})
		}
	}()
}

// SetLimit limits the number of active goroutines.
// ok: untrackedgo
func (g *Group) SetLimit(n int) {}
