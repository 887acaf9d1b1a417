// Package checkers holds context-checking helpers used across packages.
package checkers

import (
	"context"
	"time"
)

// Done reports whether ctx has ended.
func Done(ctx context.Context) bool { // want Done:"checksContext"
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// SleepOrDone waits for d and reports false when ctx ended first.
func SleepOrDone(ctx context.Context, d time.Duration) bool { // want SleepOrDone:"checksContext"
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Stopped checks through another helper.
func Stopped(ctx context.Context) bool { // want Stopped:"checksContext"
	return Done(ctx)
}

// Sleep does not look at its context: no fact.
func Sleep(ctx context.Context, d time.Duration) bool { // want Sleep:"dropsCancel"
	time.Sleep(d)
	return true
}

// Backoff sleeps for the attempt's backoff, uninterruptibly.
func Backoff(attempt int) { // want Backoff:"sleeps"
	time.Sleep(time.Duration(1<<attempt) * 100 * time.Millisecond)
}
