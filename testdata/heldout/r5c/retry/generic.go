package retry

import (
	"context"
	"errors"
	"time"

	"heldoutr5c/internal/store"
)

// Retry calls fn up to attempts times, sleeping with time.Sleep between
// tries. It retries whatever fn returns, including ctx's own cancellation, and
// the sleep ignores ctx, so after cancellation it keeps sleeping and
// re-invoking fn (which fails at once) until the attempts run out.
// From: Rican7/retry#5
// bug: retrycancel
func Retry[T any](ctx context.Context, attempts int, delay time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		if v, err = fn(ctx); err == nil {
			return v, nil
		}
		time.Sleep(store.Backoff(i, delay, 30*time.Second))
	}
	return zero, err
}

// RetryContext is the near-miss of Retry: a context error from fn ends the
// loop, and the wait between tries selects on ctx.Done.
// From: Rican7/retry#5
// ok: retrycancel
func RetryContext[T any](ctx context.Context, attempts int, delay time.Duration, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	var err error
	for i := range attempts {
		var v T
		if v, err = fn(ctx); err == nil {
			return v, nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return zero, err
		}
		t := time.NewTimer(store.Backoff(i, delay, 30*time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, ctx.Err()
		case <-t.C:
		}
	}
	return zero, err
}
