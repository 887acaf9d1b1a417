// Package nort does not depend on the runtime module: no fix may import it.
package nort

import "context"

func store(ctx context.Context, s string) error { return ctx.Err() }

func save(ctx context.Context, s string) error {
	go func() { // want `goroutine uses the context ctx of save`
		store(ctx, s)
	}()
	return nil
}
