// Package lib holds helpers whose behaviour other packages learn through
// facts: sleeps, joins, releases, error types.
package lib

import (
	"context"
	"os"
	"sync"
	"time"
)

// Pause sleeps for an exponential backoff; it takes no context.
//
// ok: retrycancel
func Pause(attempt int) {
	time.Sleep(time.Duration(1<<attempt) * 100 * time.Millisecond)
}

// PauseCtx sleeps for an exponential backoff or until ctx ends.
//
// ok: retrycancel
func PauseCtx(ctx context.Context, attempt int) error {
	t := time.NewTimer(time.Duration(1<<attempt) * 100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WaitAll waits for wg.
//
// ok: untrackedgo
func WaitAll(wg *sync.WaitGroup) {
	wg.Wait()
}

// CloseQuietly closes f.
//
// ok: leaseleak
func CloseQuietly(f *os.File) {
	_ = f.Close()
}

// Describe reads f's name; it does not close f.
//
// ok: leaseleak
func Describe(f *os.File) string {
	return f.Name()
}

// StoreError records a failed store call; it has no Unwrap.
type StoreError struct {
	Op  string
	Err error
}

// ok: foldedtimeout
func (e *StoreError) Error() string { return e.Op + ": " + e.Err.Error() }

// WrappedError records a failed store call and unwraps to its cause.
type WrappedError struct {
	Op  string
	Err error
}

// ok: foldedtimeout
func (e *WrappedError) Error() string { return e.Op + ": " + e.Err.Error() }

// ok: foldedtimeout
func (e *WrappedError) Unwrap() error { return e.Err }
