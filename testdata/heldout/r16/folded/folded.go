// Package folded holds connection pooling, retry, RPC and scripting code
// whose errors are inspected by callers with errors.Is.
package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"sync"
	"time"
)

// Connection pool

// ErrTimeout is returned by the pool when no connection became available.
var ErrTimeout = errors.New("resource pool timed out")

// ErrCtxTimeout is returned by the pool when the caller's context had already
// expired.
var ErrCtxTimeout = errors.New("resource pool context already expired")

// ErrPoolClosed is returned once the pool has been closed.
var ErrPoolClosed = errors.New("resource pool is closed")

// ConnPool hands out pooled connections of type C.
type ConnPool[C any] struct {
	idle chan C
	open chan struct{}
	dial func(ctx context.Context) (C, error)

	mu     sync.Mutex
	closed bool
}

// NewConnPool returns a pool holding at most capacity connections.
//
// ok: foldedtimeout
func NewConnPool[C any](capacity int, dial func(context.Context) (C, error)) *ConnPool[C] {
	return &ConnPool[C]{
		idle: make(chan C, capacity),
		open: make(chan struct{}, capacity),
		dial: dial,
	}
}

// isClosed reports whether Close has been called.
//
// ok: foldedtimeout
func (p *ConnPool[C]) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Put returns a connection to the pool.
//
// ok: foldedtimeout
func (p *ConnPool[C]) Put(c C) {
	select {
	case p.idle <- c:
	default:
	}
}

// Close marks the pool closed; later calls to Get fail with ErrPoolClosed.
//
// ok: foldedtimeout
func (p *ConnPool[C]) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
}

// Get returns an idle connection, dials a new one while the pool has spare
// capacity, or waits for a connection to be returned.
//
// From: vitessio/vitess#18728
// bug: foldedtimeout
func (p *ConnPool[C]) Get(ctx context.Context) (C, error) {
	var zero C
	if p.isClosed() {
		return zero, ErrPoolClosed
	}
	if ctx.Err() != nil {
		return zero, ErrCtxTimeout
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.open <- struct{}{}:
		c, err := p.dial(ctx)
		if err != nil {
			<-p.open
			return zero, fmt.Errorf("dial pooled connection: %w", err)
		}
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case <-ctx.Done():
		return zero, ErrTimeout
	}
}

// GetNearMiss returns an idle connection, dials a new one while the pool has
// spare capacity, or waits for a connection to be returned. When the context
// ends, the returned error matches both the pool sentinel and the context's
// cause.
//
// ok: foldedtimeout
func (p *ConnPool[C]) GetNearMiss(ctx context.Context) (C, error) {
	var zero C
	if p.isClosed() {
		return zero, ErrPoolClosed
	}
	if ctx.Err() != nil {
		return zero, fmt.Errorf("%w: %w", ErrCtxTimeout, context.Cause(ctx))
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.open <- struct{}{}:
		c, err := p.dial(ctx)
		if err != nil {
			<-p.open
			return zero, fmt.Errorf("dial pooled connection: %w", err)
		}
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case <-ctx.Done():
		return zero, fmt.Errorf("%w: %w", ErrTimeout, context.Cause(ctx))
	}
}

// Docker client with per-attempt timeouts

// retryingDockerClient wraps a docker API and retries calls that ran out of
// time.
type retryingDockerClient struct {
	attempts int
	timeout  time.Duration
	logger   *log.Logger
}

// retry runs f with a per-attempt timeout, retrying attempts that timed out.
//
// From: cockroachdb/cockroach#5781
// bug: foldedtimeout
func (c retryingDockerClient) retry(ctx context.Context, name string, f func(ctx context.Context) error) error {
	for i := 0; i < c.attempts; i++ {
		attemptCtx, cancel := context.WithTimeout(ctx, c.timeout)
		err := f(attemptCtx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != context.DeadlineExceeded {
			return err
		}
		c.logger.Printf("%s: attempt %d timed out after %s, retrying", name, i+1, c.timeout)
	}
	return fmt.Errorf("%s: still timing out after %d attempts: %w", name, c.attempts, context.DeadlineExceeded)
}

// retryNearMiss runs f with a per-attempt timeout, retrying attempts that
// timed out, including timeouts reported inside wrapped errors.
//
// ok: foldedtimeout
func (c retryingDockerClient) retryNearMiss(ctx context.Context, name string, f func(ctx context.Context) error) error {
	for i := 0; i < c.attempts; i++ {
		attemptCtx, cancel := context.WithTimeout(ctx, c.timeout)
		err := f(attemptCtx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		c.logger.Printf("%s: attempt %d timed out after %s, retrying", name, i+1, c.timeout)
	}
	return fmt.Errorf("%s: still timing out after %d attempts: %w", name, c.attempts, context.DeadlineExceeded)
}

// CLI status errors

// StatusError reports a failed command together with the exit code the CLI
// should use.
type StatusError struct {
	Status     string
	StatusCode int
	Cause      error
}

// Error returns the status message.
//
// ok: foldedtimeout
func (e StatusError) Error() string {
	if e.Status == "" && e.Cause != nil {
		return e.Cause.Error()
	}
	return e.Status
}

// Unwrap returns the underlying cause, if any.
//
// ok: foldedtimeout
func (e StatusError) Unwrap() error {
	return e.Cause
}

// Engine is the container engine API used by the runner.
type Engine interface {
	Start(ctx context.Context, id string) error
	Wait(ctx context.Context, id string) (int, error)
}

// Runner runs containers attached to the terminal.
type Runner struct {
	engine Engine
}

// RunAttached starts the container and waits for it to exit, converting the
// outcome into a StatusError carrying the exit code.
//
// From: docker/cli#5778
// bug: foldedtimeout
func (r *Runner) RunAttached(ctx context.Context, id string) error {
	if err := r.engine.Start(ctx, id); err != nil {
		return StatusError{Status: "failed to start container: " + err.Error(), StatusCode: 125}
	}
	code, err := r.engine.Wait(ctx, id)
	if err != nil {
		return StatusError{Status: err.Error(), StatusCode: 125}
	}
	if code != 0 {
		return StatusError{StatusCode: code}
	}
	return nil
}

// RunAttachedNearMiss starts the container and waits for it to exit,
// converting the outcome into a StatusError that keeps the underlying error
// as its cause.
//
// ok: foldedtimeout
func (r *Runner) RunAttachedNearMiss(ctx context.Context, id string) error {
	if err := r.engine.Start(ctx, id); err != nil {
		return StatusError{Status: "failed to start container: " + err.Error(), StatusCode: 125, Cause: err}
	}
	code, err := r.engine.Wait(ctx, id)
	if err != nil {
		return StatusError{StatusCode: 125, Cause: err}
	}
	if code != 0 {
		return StatusError{StatusCode: code}
	}
	return nil
}

// ExitCode maps an error returned by a command to the process exit status,
// printing nothing for a user-initiated interrupt.
//
// ok: foldedtimeout
func ExitCode(err error) (int, string) {
	if err == nil {
		return 0, ""
	}
	if errors.Is(err, context.Canceled) {
		return 130, ""
	}
	var se StatusError
	if errors.As(err, &se) {
		if se.StatusCode == 0 {
			return 1, se.Error()
		}
		return se.StatusCode, se.Error()
	}
	return 1, err.Error()
}

// Storage-client retry loop

// Pauser yields the pause before each retry.
type Pauser interface {
	Pause() time.Duration
}

// retryFailedError combines the context error that ended a retry loop with
// the error of the last attempt.
type retryFailedError struct {
	ctxErr  error
	lastErr error
}

// Error describes the context error and the last attempt's error.
//
// ok: foldedtimeout
func (e *retryFailedError) Error() string {
	if e.lastErr == nil {
		return e.ctxErr.Error()
	}
	return fmt.Sprintf("retry failed with %v; last error: %v", e.ctxErr, e.lastErr)
}

// Unwrap exposes both errors to errors.Is and errors.As.
//
// ok: foldedtimeout
func (e *retryFailedError) Unwrap() []error {
	return []error{e.ctxErr, e.lastErr}
}

// Retry calls call until it reports stop, pausing between attempts, and
// describes the context error and the last attempt's error if the context
// ends first.
//
// From: googleapis/google-cloud-go#4797
// bug: foldedtimeout
func Retry(ctx context.Context, bo Pauser, call func() (stop bool, err error)) error {
	var lastErr error
	for {
		stop, err := call()
		if stop {
			return err
		}
		lastErr = err
		t := time.NewTimer(bo.Pause())
		select {
		case <-ctx.Done():
			t.Stop()
			if lastErr == nil {
				return ctx.Err()
			}
			return fmt.Errorf("retry failed with %v; last error: %v", ctx.Err(), lastErr)
		case <-t.C:
		}
	}
}

// RetryNearMiss calls call until it reports stop, pausing between attempts,
// and returns an error that wraps both the context error and the last
// attempt's error if the context ends first.
//
// ok: foldedtimeout
func RetryNearMiss(ctx context.Context, bo Pauser, call func() (stop bool, err error)) error {
	var lastErr error
	for {
		stop, err := call()
		if stop {
			return err
		}
		lastErr = err
		t := time.NewTimer(bo.Pause())
		select {
		case <-ctx.Done():
			t.Stop()
			if lastErr == nil {
				return ctx.Err()
			}
			return &retryFailedError{ctxErr: ctx.Err(), lastErr: lastErr}
		case <-t.C:
		}
	}
}

// RPC message deadlines

// RPCMessage is a request queued on a client connection.
type RPCMessage struct {
	Ctx     context.Context
	ID      uint64
	Payload []byte
}

// Timeout reports the time left before the message's deadline, or an error
// if the message should no longer be written to the connection.
//
// From: matrixorigin/matrixone#27711
// bug: foldedtimeout
func (m RPCMessage) Timeout() (time.Duration, error) {
	d, ok := m.Ctx.Deadline()
	if !ok {
		return 0, nil
	}
	left := time.Until(d)
	if left <= 0 {
		return 0, context.DeadlineExceeded
	}
	return left, nil
}

// TimeoutNearMiss reports the time left before the message's deadline, or an
// error if the message should no longer be written to the connection. An
// already-ended context reports its own error first.
//
// ok: foldedtimeout
func (m RPCMessage) TimeoutNearMiss() (time.Duration, error) {
	if err := m.Ctx.Err(); err != nil {
		return 0, err
	}
	d, ok := m.Ctx.Deadline()
	if !ok {
		return 0, nil
	}
	left := time.Until(d)
	if left <= 0 {
		return 0, context.DeadlineExceeded
	}
	return left, nil
}

// writeLoop encodes queued messages, dropping those whose time is up and
// reporting the reason to the waiting caller.
//
// ok: foldedtimeout
func writeLoop(ctx context.Context, queue <-chan RPCMessage, write func([]byte, time.Duration) error, fail func(uint64, error)) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m := <-queue:
			left, err := m.TimeoutNearMiss()
			if err != nil {
				fail(m.ID, fmt.Errorf("message %d not sent: %w", m.ID, err))
				continue
			}
			if err := write(m.Payload, left); err != nil {
				return fmt.Errorf("write message %d: %w", m.ID, err)
			}
		}
	}
}

// Query-language WAIT function

// Value is a runtime value of the query language.
type Value interface{}

// None is the empty runtime value.
var None Value = struct{}{}

// toMillis converts the WAIT argument to a duration.
//
// ok: foldedtimeout
func toMillis(v Value) (time.Duration, error) {
	switch x := v.(type) {
	case int:
		return time.Duration(x) * time.Millisecond, nil
	case float64:
		return time.Duration(x * float64(time.Millisecond)), nil
	case string:
		n, err := strconv.Atoi(x)
		if err != nil {
			return 0, fmt.Errorf("WAIT: invalid duration %q: %w", x, err)
		}
		return time.Duration(n) * time.Millisecond, nil
	default:
		return 0, fmt.Errorf("WAIT: unsupported argument type %T", v)
	}
}

// Wait pauses the running script for the given number of milliseconds, or
// until the script's context ends.
//
// From: MontFerret/ferret#524
// bug: foldedtimeout
func Wait(ctx context.Context, args ...Value) (Value, error) {
	if len(args) != 1 {
		return None, errors.New("WAIT: expected exactly one argument")
	}
	d, err := toMillis(args[0])
	if err != nil {
		return None, err
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return None, errors.New("context cancelled")
	case <-timer.C:
		return None, nil
	}
}

// WaitNearMiss pauses the running script for the given number of
// milliseconds, or until the script's context ends, in which case it returns
// the context's error annotated with the call.
//
// ok: foldedtimeout
func WaitNearMiss(ctx context.Context, args ...Value) (Value, error) {
	if len(args) != 1 {
		return None, errors.New("WAIT: expected exactly one argument")
	}
	d, err := toMillis(args[0])
	if err != nil {
		return None, err
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return None, fmt.Errorf("WAIT(%s): %w", d, ctx.Err())
	case <-timer.C:
		return None, nil
	}
}

// Code that inspects context errors directly

// Cancelled reports whether ctx itself was cancelled rather than timed out.
// Context.Err returns the sentinel values unwrapped, so comparing them
// directly is exact.
//
// ok: foldedtimeout
func Cancelled(ctx context.Context) bool {
	return ctx.Err() == context.Canceled
}

// HTTPStatus maps an error from the service layer to a response status code.
//
// ok: foldedtimeout
func HTTPStatus(err error) int {
	switch {
	case err == nil:
		return 200
	case errors.Is(err, context.DeadlineExceeded):
		return 504
	case errors.Is(err, context.Canceled):
		return 499
	case errors.Is(err, ErrPoolClosed):
		return 503
	default:
		return 500
	}
}

// FetchLogged calls fetch, logs a failure with its message and returns the
// original error unchanged to the caller.
//
// ok: foldedtimeout
func FetchLogged(ctx context.Context, logger *log.Logger, key string, fetch func(context.Context, string) ([]byte, error)) ([]byte, error) {
	b, err := fetch(ctx, key)
	if err != nil {
		logger.Printf("fetch %s failed: %v", key, err)
		return nil, err
	}
	return b, nil
}

// ValidateKey rejects empty keys with an error of its own; no context is
// involved in the check.
//
// ok: foldedtimeout
func ValidateKey(key string) error {
	if key == "" {
		return errors.New("key must not be empty")
	}
	return nil
}
