// Package classify holds retry loops whose exits ask a predicate of the
// error: its verdict on a cancellation, read off its body, says whether the
// loop stops when the context ends.
package classify

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"classifylib"
)

var errUnauthorized = errors.New("unauthorized")

func call(ctx context.Context) (int, error) { return 0, ctx.Err() }

func warnf(string, ...any) {}

// shouldRetry says true for every error but errUnauthorized.
func shouldRetry(status int, err error) bool {
	if errors.Is(err, errUnauthorized) {
		return false
	}
	if err != nil {
		return true
	}
	return status >= 500
}

// DoCall retries while shouldRetry says so, which it does for a
// cancellation.
func DoCall(ctx context.Context, attempts int) (int, error) {
	var status int
	var err error
	for i := 0; i < attempts; i++ { // want `this retry loop in DoCall calls call again after it fails without checking ctx`
		status, err = call(ctx)
		if !shouldRetry(status, err) {
			return status, err
		}
		warnf("retrying: %v", err)
	}
	return status, err
}

// DoCallChecked stops on the context's end before asking.
func DoCallChecked(ctx context.Context, attempts int) (int, error) {
	var status int
	var err error
	for i := 0; i < attempts; i++ {
		status, err = call(ctx)
		if ctx.Err() != nil {
			return status, ctx.Err()
		}
		if !shouldRetry(status, err) {
			return status, err
		}
	}
	return status, err
}

// determine returns its verdict with a wait: true for network errors and
// both context errors.
func determine(attempt int, resp *http.Response, err error) (bool, time.Duration) {
	base := time.Duration(attempt) * time.Millisecond
	if err != nil {
		var nerr net.Error
		if errors.As(err, &nerr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return true, base
		}
		return false, 0
	}
	return resp.StatusCode >= 500, base
}

func get(ctx context.Context) (*http.Response, error) { return nil, ctx.Err() }

// Execute keeps the verdict in a variable.
func Execute(ctx context.Context, max int) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= max; attempt++ { // want `this retry loop in Execute calls get again after it fails without checking ctx`
		resp, err := get(ctx)
		retry, wait := determine(attempt, resp, err)
		if !retry {
			return resp, err
		}
		lastErr = err
		_ = wait
	}
	return nil, lastErr
}

// permanent says true for the context's errors: the loop leaves on them.
func permanent(err error) bool {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case errors.Is(err, errUnauthorized):
		return true
	}
	return false
}

// Permanent leaves when permanent says so, which it does for both ends.
func Permanent(ctx context.Context) error {
	for {
		_, err := call(ctx)
		if err == nil || permanent(err) {
			return err
		}
		warnf("retrying: %v", err)
	}
}

// isTransient says true for a deadline, false for a cancel: the loop goes
// on when the caller's deadline passes.
func isTransient(err error) bool {
	return errors.Is(err, classifylib.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}

func Transient(ctx context.Context, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	for { // want `this retry loop in Transient calls call again after it fails without checking ctx`
		_, err := call(ctx)
		if err == nil {
			return nil
		}
		if !isTransient(err) || time.Now().After(deadline) {
			return err
		}
	}
}

// Across packages: Transient says true for a cancellation, Retryable
// false.
func Imported(ctx context.Context, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ { // want `this retry loop in Imported calls call again after it fails without checking ctx`
		if _, err = call(ctx); !classifylib.Transient(err) {
			return err
		}
	}
	return err
}

func ImportedRetryable(ctx context.Context, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		if _, err = call(ctx); !classifylib.Retryable(err) {
			return err
		}
	}
	return err
}

// unsure looks at the error's text: no verdict.
func unsure(err error) bool {
	return err != nil && len(err.Error()) > 3
}

func Unsure(ctx context.Context, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		if _, err = call(ctx); !unsure(err) {
			return err
		}
	}
	return err
}
