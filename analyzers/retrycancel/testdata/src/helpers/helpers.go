// Package helpers holds context-checking helpers used across packages.
package helpers

import (
	"context"
	"time"
)

// Done reports whether ctx has ended.
func Done(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// SleepOrDone waits for d and reports false when ctx ended first.
func SleepOrDone(ctx context.Context, d time.Duration) bool {
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
func Stopped(ctx context.Context) bool {
	return Done(ctx)
}

// Sleep does not look at its context: no fact.
func Sleep(ctx context.Context, d time.Duration) bool {
	time.Sleep(d)
	return true
}

// Backoff sleeps for the attempt's backoff, uninterruptibly.
func Backoff(attempt int) {
	time.Sleep(time.Duration(1<<attempt) * 100 * time.Millisecond)
}

// RetryDo calls fn up to attempts times, sleeping delay between failures;
// it takes no context and never stops early.
func RetryDo(attempts int, delay time.Duration, fn func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); err == nil {
			return nil
		}
		time.Sleep(delay)
	}
	return err
}

// Attempt calls fn once: nothing to retry.
func Attempt(fn func() error) error { return fn() }
