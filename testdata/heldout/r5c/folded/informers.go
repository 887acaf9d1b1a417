// Package folded holds examples of folded timeouts: context.DeadlineExceeded
// and context.Canceled lose their identity on the way to the caller.
package folded

import (
	"context"
	"fmt"
	"time"
)

// Informer is a cache that reports when its initial list has loaded.
type Informer interface {
	Name() string
	HasSynced() bool
}

// firstPending returns the name of the first informer that has not synced.
// ok: foldedtimeout
func firstPending(informers []Informer) string {
	for _, inf := range informers {
		if !inf.HasSynced() {
			return inf.Name()
		}
	}
	return ""
}

// WaitForCacheSync polls until every informer has synced. On cancellation it
// formats ctx.Err() with %v, so the controller's
// errors.Is(err, context.DeadlineExceeded) check, which turns a slow start
// into a requeue, never matches and the controller exits instead.
// From: kubernetes/kubernetes#114578
// bug: foldedtimeout
func WaitForCacheSync(ctx context.Context, period time.Duration, informers ...Informer) error {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		pending := firstPending(informers)
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("unable to sync caches (waiting on %s): %v", pending, ctx.Err())
		case <-ticker.C:
		}
	}
}

// UntilSynced is the near-miss of WaitForCacheSync: ctx.Err() is wrapped with
// %w, so errors.Is still recognises the deadline.
// From: kubernetes/kubernetes#114578
// ok: foldedtimeout
func UntilSynced(ctx context.Context, period time.Duration, informers ...Informer) error {
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		pending := firstPending(informers)
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("unable to sync caches (waiting on %s): %w", pending, ctx.Err())
		case <-ticker.C:
		}
	}
}
