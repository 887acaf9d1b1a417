package a

import (
	"context"
	"errors"
	"fmt"
	"store"
	"time"
)

// sleepCtx waits for d or until ctx ends: its error is ctx's, or nil.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A failing backoff is the context's end: breaking out to a nil return
// reports success for a flush that was canceled (atc0005/send2teams#89).
func flushAll(ctx context.Context, keys []string, retries int) error {
outer:
	for _, k := range keys {
		for attempt := 0; ; attempt++ {
			err := store.Put(ctx, k, "v")
			if err == nil {
				continue outer
			}
			if attempt == retries {
				return fmt.Errorf("put %s: %w", k, err)
			}
			if err := sleepCtx(ctx, time.Millisecond<<attempt); err != nil { // want `when err is a cancellation this branch leaves the loop for a return of a nil error, so flushAll reports success for work that was canceled`
				break outer
			}
		}
	}
	return nil
}

// Near-miss: the backoff's cancellation is returned.
func flushAllReturned(ctx context.Context, keys []string, retries int) error {
	for _, k := range keys {
		for attempt := 0; ; attempt++ {
			err := store.Put(ctx, k, "v")
			if err == nil {
				break
			}
			if attempt == retries {
				return fmt.Errorf("put %s: %w", k, err)
			}
			if err := sleepCtx(ctx, time.Millisecond<<attempt); err != nil {
				return fmt.Errorf("backoff: %w", err)
			}
		}
	}
	return nil
}

// checkCtx fails fast on a done context: its only error is ctx's.
func checkCtx(ctx context.Context, n int) ([]int, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return make([]int, n), nil
}

// A filter on such an error still lets a cancellation past.
func prepareFastFail(ctx context.Context, n int) ([]int, error) {
	v, err := checkCtx(ctx, n)
	if err != nil && !errors.Is(err, context.Canceled) { // want `when err is a cancellation this test lets it past the failure branch, so prepareFastFail returns results built from a canceled call with a nil error`
		return nil, err
	}
	return v, nil
}
