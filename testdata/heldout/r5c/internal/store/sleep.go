package store

import (
	"context"
	"iter"
	"time"
)

// Backoff returns the exponential delay for attempt (0-based), capped at max.
// ok: retrycancel
func Backoff(attempt int, base, max time.Duration) time.Duration {
	d := base
	for range attempt {
		d *= 2
		if d >= max {
			return max
		}
	}
	return d
}

// Sleep waits for d, or returns ctx.Err() as soon as ctx is done.
// ok: retrycancel
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Pause waits for d but wakes early when ctx is done. It reports nothing;
// callers that need to know why it returned must look at ctx themselves.
// ok: retrycancel
func Pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Attempts yields attempt numbers 0..n-1, waiting an exponential backoff
// between them. It stops early, without yielding again, once ctx is done.
// ok: retrycancel
func Attempts(ctx context.Context, n int, base time.Duration) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			if !yield(i) {
				return
			}
			if i == n-1 {
				return
			}
			if Sleep(ctx, Backoff(i, base, 30*time.Second)) != nil {
				return
			}
		}
	}
}
