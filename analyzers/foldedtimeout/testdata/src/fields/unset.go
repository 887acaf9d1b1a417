package fields

import (
	"context"
	"time"
)

// CallTimeoutError unwraps to its cause, or to DeadlineExceeded when none
// was given.
type CallTimeoutError struct {
	Method string
	Cause  error
}

func (e *CallTimeoutError) Error() string { return e.Method + ": timed out" }

func (e *CallTimeoutError) Unwrap() error {
	if e.Cause != nil {
		return e.Cause
	}
	return context.DeadlineExceeded
}

// Any end of cctx, a canceled parent included, becomes a timeout: the
// literal leaves Cause unset (cloudwego/kitex#838).
func callTimed(ctx context.Context, m string) error {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := get(cctx, m)
	if err != nil {
		if cctx.Err() != nil {
			return &CallTimeoutError{Method: m} // want `&CallTimeoutError\{…\} reports cctx's end as a timeout`
		}
		return err
	}
	return nil
}

// Near-miss: the cause is kept, and Unwrap returns it.
func callTimedCause(ctx context.Context, m string) error {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := get(cctx, m)
	if err != nil {
		if cerr := cctx.Err(); cerr != nil {
			return &CallTimeoutError{Method: m, Cause: cerr}
		}
		return err
	}
	return nil
}

// Near-miss: an Unwrap that computes its result is not judged.
type lookupError struct{ op string }

func (e *lookupError) Error() string { return e.op }
func (e *lookupError) Unwrap() error { return errorFor(e.op) }

func errorFor(string) error { return nil }

func lookup(ctx context.Context, k string) error {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := get(cctx, k); err != nil && cctx.Err() != nil {
		return &lookupError{op: k}
	}
	return nil
}
