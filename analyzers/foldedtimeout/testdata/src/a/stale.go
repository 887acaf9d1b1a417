package a

import (
	"context"
	"errors"
	"fmt"
	"time"
)

type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }

func attempt(ctx context.Context) (int, error) { return 0, ctx.Err() }

// sendAndRetry returns the last attempt's failure when ctx ends during the
// pause: a status error made before the end.
func sendAndRetry(ctx context.Context, pause time.Duration) (int, error) {
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return 0, lastErr // want `lastErr can still hold the error value set at line 34 when this branch returns it in place of ctx's end: the caller is told of that failure and errors.Is\(err, context.Canceled\) is false`
		case <-time.After(pause):
		}
		code, err := attempt(ctx)
		switch {
		case err != nil:
			lastErr = err
		case code >= 500:
			lastErr = &statusError{code: code}
		default:
			return code, nil
		}
	}
}

// Near-miss: the branch wraps the context's error with the last failure.
func sendAndRetryWrapped(ctx context.Context, pause time.Duration) (int, error) {
	var lastErr error
	for {
		select {
		case <-ctx.Done():
			if lastErr == nil {
				return 0, ctx.Err()
			}
			return 0, fmt.Errorf("%w (last error: %w)", ctx.Err(), lastErr)
		case <-time.After(pause):
		}
		code, err := attempt(ctx)
		switch {
		case err != nil:
			lastErr = err
		case code >= 500:
			lastErr = &statusError{code: code}
		default:
			return code, nil
		}
	}
}

// Near-miss: every value the variable can hold there carries the end.
func waitResult(ctx context.Context, results <-chan error) error {
	var err error
	select {
	case err = <-results:
		return err
	case <-ctx.Done():
		err = ctx.Err()
	}
	if ctx.Err() != nil {
		return err
	}
	return nil
}

var errBusy = errors.New("server busy")

// The timeout sentinel set on an earlier round is returned for a
// cancellation.
func pollBusy(ctx context.Context) error {
	err := errBusy
	for {
		select {
		case <-ctx.Done():
			return err // want `err can still hold the sentinel errBusy set at line 85 when this branch returns it in place of ctx's end`
		case <-time.After(time.Second):
		}
		if _, e := attempt(ctx); e == nil {
			return nil
		}
	}
}
