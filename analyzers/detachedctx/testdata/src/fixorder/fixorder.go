// Package fixorder: which fix comes first. Drivers that apply one fix per
// finding (go vet -fix, golangci-lint --fix) apply the first; it must keep
// what the code does. The comment above each finding says which fix is first.
package fixorder

import (
	"context"
	"sync"
	"time"
)

func fetch(ctx context.Context, u string) error { return ctx.Err() }

type client struct{}

func (client) Ping(ctx context.Context) error { return ctx.Err() }

// Joined work: the caller's context first.
func Joined(ctx context.Context, urls []string) {
	var wg sync.WaitGroup
	for _, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				return
			}
			// first: Use the context in reach
			_ = fetch(context.Background(), u) // want `cuts off ctx`
		}()
	}
	wg.Wait()
}

// Fire-and-forget: nothing waits for the goroutine, which outlives the
// caller by design; with ctx it would be cut off when the caller returns.
func Forget(ctx context.Context, urls []string) {
	for _, u := range urls {
		go func() {
			if ctx.Err() != nil {
				return
			}
			// first: Detach with context.WithoutCancel
			_ = fetch(context.Background(), u) // want `cuts off ctx`
		}()
	}
}

// A retry loop that never tests a context: with ctx it would spin once ctx
// is canceled (retrycancel reports the loop then).
func Retry(ctx context.Context, c client) {
	for {
		// first: Detach with context.WithoutCancel
		if err := c.Ping(context.Background()); err == nil { // want `cuts off ctx`
			return
		}
		time.Sleep(time.Second)
	}
}

// A retry loop that tests ctx stops on cancellation: the caller's context
// first.
func RetryChecked(ctx context.Context, c client) error {
	for ctx.Err() == nil {
		// first: Use the context in reach
		if err := c.Ping(context.Background()); err == nil { // want `cuts off ctx`
			return nil
		}
		time.Sleep(time.Second)
	}
	return ctx.Err()
}
