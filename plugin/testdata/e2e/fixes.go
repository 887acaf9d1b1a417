// Findings with alternative fixes and with related places, for the
// golangci-lint end-to-end test: --fix must apply the first fix of each,
// and each finding must be one issue.
package e2e

import (
	"context"
	"time"
)

func fetch(ctx context.Context) error { return ctx.Err() }

// Detached calls fetch on a fresh root: alternative fixes (ctx, or
// context.WithoutCancel(ctx)).
func Detached(ctx context.Context) error {
	return fetch(context.Background())
}

// First leaves its sender blocked when ctx ends first: alternative fixes.
func First(ctx context.Context) error {
	ch := make(chan error)
	go func() { ch <- fetch(ctx) }()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Poll retries without looking at ctx.
func Poll(ctx context.Context) {
	for {
		if fetch(ctx) == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// Lease leaks its timer on the early returns: related places.
func Lease(ctx context.Context, a, b bool) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	if a {
		return nil
	}
	if b {
		return nil
	}
	defer cancel()
	return fetch(ctx)
}
