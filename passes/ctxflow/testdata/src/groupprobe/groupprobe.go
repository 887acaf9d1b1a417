package groupprobe

import (
	"context"

	"golang.org/x/sync/errgroup"
)

func step(ctx context.Context) error { return nil }

func parse() error { return nil }

func withContext(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return step(gctx) }) // want `carrier in function literal`
	return g.Wait()                          // want `carrier in withContext`
}

func waitVar(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return step(gctx) }) // want `carrier in function literal`
	err := g.Wait()
	return err // want `carrier in waitVar`
}

// A zero group has no context: its error is the goroutines' own.
func zeroGroup() error {
	var g errgroup.Group
	g.Go(parse)
	return g.Wait()
}

// A group under a detached context.
func detached() error {
	g, gctx := errgroup.WithContext(context.Background())
	g.Go(func() error { return step(gctx) }) // want `carrier in function literal`
	return g.Wait()
}

// A group reassigned from a constructor that is not followed.
func reassigned(ctx context.Context) error {
	g, _ := errgroup.WithContext(ctx)
	g = new(errgroup.Group)
	return g.Wait()
}
