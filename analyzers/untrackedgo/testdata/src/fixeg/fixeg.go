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

// The body cannot reach its end (the loop only returns): the fix adds no
// trailing return, which would be unreachable code.
func tally(read func() error) int {
	n := 0
	go func() { // want `goroutine writes n, a variable of tally`
		for {
			if err := read(); err != nil {
				return
			}
			n++
		}
	}()
	return n
}
