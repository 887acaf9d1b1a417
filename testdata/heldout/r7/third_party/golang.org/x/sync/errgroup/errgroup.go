// Package errgroup is a tiny local stand-in for golang.org/x/sync/errgroup
// with the same surface the batch uses: WithContext, Go, Wait, SetLimit.
package errgroup

import (
	"context"
	"sync"
)

type token struct{}

// Group is a collection of goroutines working on subtasks of a common task.
type Group struct {
	cancel  func(error)
	wg      sync.WaitGroup
	sem     chan token
	errOnce sync.Once
	err     error
}

// WithContext returns a new Group and a derived Context that is canceled the
// first time a function passed to Go returns a non-nil error or the first
// time Wait returns, whichever occurs first.
// ok: untrackedgo
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Group{cancel: cancel}, ctx
}

// done releases the limit slot and marks one goroutine finished.
// ok: untrackedgo
func (g *Group) done() {
	if g.sem != nil {
		<-g.sem
	}
	g.wg.Done()
}

// Wait blocks until all function calls from Go have returned, then returns
// the first non-nil error (if any) from them.
// ok: untrackedgo
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}

// Go calls f in a new goroutine, blocking first if the limit is reached.
// ok: untrackedgo
func (g *Group) Go(f func() error) {
	if g.sem != nil {
		g.sem <- token{}
	}
	g.wg.Add(1)
	go func() {
		defer g.done()
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

// SetLimit limits the number of active goroutines to n (negative: no limit).
// ok: untrackedgo
func (g *Group) SetLimit(n int) {
	if n < 0 {
		g.sem = nil
		return
	}
	g.sem = make(chan token, n)
}
