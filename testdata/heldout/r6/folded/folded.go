// Package folded holds cases where context.DeadlineExceeded / Canceled lose
// their identity on the way to the caller.
package folded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Querier runs a query honouring ctx.
type Querier func(ctx context.Context, q string) ([]string, error)

// ErrAborted is a package sentinel for aborted executions.
var ErrAborted = errors.New("execution aborted")

// ErrTimeout is reported when an operation ran out of time.
var ErrTimeout = errors.New("operation timed out")

// StatusFor maps an error to an HTTP status; it relies on errors.Is.
// ok: foldedtimeout
func StatusFor(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499
	default:
		return http.StatusInternalServerError
	}
}

// Lookup formats the query error with %v, so StatusFor sees a plain string
// error and answers 500 instead of 504 when the deadline passed.
// From: golang/go#54541
// bug: foldedtimeout
func Lookup(ctx context.Context, run Querier, key string) ([]string, error) {
	rows, err := run(ctx, "select "+key)
	if err != nil {
		return nil, fmt.Errorf("lookup %q: %v", key, err)
	}
	return rows, nil
}

// LookupWrapped wraps with %w.
// ok: foldedtimeout
func LookupWrapped(ctx context.Context, run Querier, key string) ([]string, error) {
	rows, err := run(ctx, "select "+key)
	if err != nil {
		return nil, fmt.Errorf("lookup %q: %w", key, err)
	}
	return rows, nil
}

// Normalize rebuilds the error from its message to strip driver types;
// that also strips context.DeadlineExceeded, so callers can no longer
// recognise a timeout.
// From: mongodb/mongo-go-driver#1355
// bug: foldedtimeout
func Normalize(ctx context.Context, run Querier) error {
	if _, err := run(ctx, "ping"); err != nil {
		return errors.New("ping: " + err.Error())
	}
	return nil
}

// NormalizeWrapped keeps the chain.
// ok: foldedtimeout
func NormalizeWrapped(ctx context.Context, run Querier) error {
	if _, err := run(ctx, "ping"); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// Task is a unit that finishes by closing Finished.
type Task interface {
	Finished() <-chan struct{}
}

// Await waits for the task; on ctx.Done it returns a fresh error, so a
// deadline or cancel becomes an opaque "context done".
// From: influxdata/flux#1228
// bug: foldedtimeout
func Await(ctx context.Context, t Task) error {
	select {
	case <-t.Finished():
		return nil
	case <-ctx.Done():
		return errors.New("context done")
	}
}

// AwaitWrapped returns the package sentinel joined with ctx.Err(), so both
// errors.Is(err, ErrAborted) and errors.Is(err, context.Canceled) work.
// ok: foldedtimeout
func AwaitWrapped(ctx context.Context, t Task) error {
	select {
	case <-t.Finished():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrAborted, ctx.Err())
	}
}

// WithTimeout runs fn under a timeout and reports every ctx.Done as a
// timeout, also when the parent was canceled by the client, so a client
// cancel is counted and retried as a server timeout.
// From: mercari/grpc-federation#300
// bug: foldedtimeout
func WithTimeout[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := fn(ctx)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("after %s: %w", d, ErrTimeout)
	}
}

// WithTimeoutChecked distinguishes a real timeout from a cancel.
// ok: foldedtimeout
func WithTimeoutChecked[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := fn(ctx)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("after %s: %w: %w", d, ErrTimeout, ctx.Err())
		}
		return zero, ctx.Err()
	}
}

// Walker yields the next commit; errors are wrapped by the layers below.
type Walker func(ctx context.Context) (string, error)

// Walk stops quietly on a deadline, but compares with ==; the walker's
// error is wrapped, the check never matches and the deadline surfaces as a
// hard failure (HTTP 500) instead of a partial result.
// From: go-gitea/gitea#20346
// bug: foldedtimeout
func Walk(ctx context.Context, next Walker, limit int) ([]string, error) {
	var out []string
	for len(out) < limit {
		c, err := next(ctx)
		if err != nil {
			if err == context.DeadlineExceeded {
				return out, nil
			}
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// WalkIs uses errors.Is.
// ok: foldedtimeout
func WalkIs(ctx context.Context, next Walker, limit int) ([]string, error) {
	var out []string
	for len(out) < limit {
		c, err := next(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return out, nil
			}
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// OpError keeps only an operation name and a message.
type OpError struct {
	Op  string
	Msg string
}

// Error implements error.
// ok: foldedtimeout
func (e *OpError) Error() string { return e.Op + ": " + e.Msg }

// WrapError keeps the cause.
type WrapError struct {
	Op  string
	Err error
}

// Error implements error.
// ok: foldedtimeout
func (e *WrapError) Error() string { return e.Op + ": " + e.Err.Error() }

// Unwrap exposes the cause to errors.Is / errors.As.
// ok: foldedtimeout
func (e *WrapError) Unwrap() error { return e.Err }

// Call converts any failure into an OpError that stores only the message,
// so a deadline cannot be recognised by callers.
// From: mongodb/mongo-go-driver#1355
// bug: foldedtimeout
func Call(ctx context.Context, op string, do func(context.Context) error) error {
	if err := do(ctx); err != nil {
		return &OpError{Op: op, Msg: err.Error()}
	}
	return nil
}

// CallWrapped stores the cause in a type with Unwrap.
// ok: foldedtimeout
func CallWrapped(ctx context.Context, op string, do func(context.Context) error) error {
	if err := do(ctx); err != nil {
		return &WrapError{Op: op, Err: err}
	}
	return nil
}

// Classify compares ctx.Err() with ==. ctx.Err() returns the bare sentinels,
// so == is exact here; a careless check would flag it.
// ok: foldedtimeout
func Classify(ctx context.Context) string {
	switch ctx.Err() {
	case nil:
		return "live"
	case context.DeadlineExceeded:
		return "timeout"
	case context.Canceled:
		return "canceled"
	default:
		return "other"
	}
}

// Fetch formats extra detail with %v but wraps the cause with %w.
// ok: foldedtimeout
func Fetch(ctx context.Context, run Querier, key string) error {
	start := time.Now()
	if _, err := run(ctx, key); err != nil {
		return fmt.Errorf("fetch %s (after %v): %w", key, time.Since(start), err)
	}
	return nil
}
