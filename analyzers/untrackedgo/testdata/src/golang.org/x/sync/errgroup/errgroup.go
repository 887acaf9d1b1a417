// Package errgroup is a stub of golang.org/x/sync/errgroup for tests: its
// Go, like the real one, runs f in a goroutine that reports to a WaitGroup
// through a helper method.
package errgroup

import (
	"context"
	"sync"
)

type Group struct{ wg sync.WaitGroup }

func WithContext(ctx context.Context) (*Group, context.Context) { return &Group{}, ctx }

func (g *Group) done() { g.wg.Done() }

func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.done()
		f()
	}()
}

func (g *Group) Wait() error { g.wg.Wait(); return nil }
