package fixeg

import (
	"context"

	"golang.org/x/sync/errgroup"
)

func fetch(ctx context.Context, id string) error { return ctx.Err() }

func all(ctx context.Context, ids []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, id := range ids {
		g.Go(func() error { return fetch(gctx, id) })
	}
	go func() { // want `goroutine uses the context ctx of all`
		fetch(ctx, "audit")
	}()
	return g.Wait()
}
