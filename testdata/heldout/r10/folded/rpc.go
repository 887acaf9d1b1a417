package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"time"
)

// ---------------------------------------------------------------------------
// RPC error classification.

// Code is an RPC status code.
type Code int

// RPC status codes.
const (
	CodeUnknown Code = iota + 1
	CodeCanceled
	CodeDeadlineExceeded
	CodeUnavailable
)

// ok: foldedtimeout
func (c Code) String() string {
	switch c {
	case CodeCanceled:
		return "canceled"
	case CodeDeadlineExceeded:
		return "deadline_exceeded"
	case CodeUnavailable:
		return "unavailable"
	}
	return "unknown"
}

// codedError carries a status code and the failure it was derived from.
type codedError struct {
	code  Code
	cause error
}

// ok: foldedtimeout
func (e *codedError) Error() string {
	return e.code.String() + ": " + e.cause.Error()
}

// Error is an RPC error with a status code; it unwraps to its cause.
type Error struct {
	code  Code
	cause error
}

// ok: foldedtimeout
func (e *Error) Error() string {
	return e.code.String() + ": " + e.cause.Error()
}

// ok: foldedtimeout
func (e *Error) Unwrap() error { return e.cause }

// CodeOf reports the status code of err.
// ok: foldedtimeout
func CodeOf(err error) Code {
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	var e *Error
	if errors.As(err, &e) {
		return e.code
	}
	return CodeUnknown
}

// wrapIfContextError gives context failures their own status codes so
// clients can tell a caller's cancellation from its deadline.
// From: connectrpc/connect-go#659
// bug: foldedtimeout
func wrapIfContextError(err error) error {
	if err == nil {
		return nil
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &codedError{code: CodeCanceled, cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &codedError{code: CodeDeadlineExceeded, cause: err}
	default:
		return err
	}
}

// wrapIfContextErrorNearMiss gives context failures their own status codes
// so clients can tell a caller's cancellation from its deadline.
// ok: foldedtimeout
func wrapIfContextErrorNearMiss(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{code: CodeCanceled, cause: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{code: CodeDeadlineExceeded, cause: err}
	default:
		return err
	}
}

// ---------------------------------------------------------------------------
// Health probing.

// HealthClient asks a server for a service's serving status.
type HealthClient interface {
	Check(ctx context.Context, service string) (string, error)
}

// HealthProbe checks services for an operator.
type HealthProbe struct {
	client  HealthClient
	timeout time.Duration
}

// Probe checks service within the probe's timeout and explains failures in operator terms.
// From: grpc-ecosystem/grpc-health-probe#1
// bug: foldedtimeout
func (p *HealthProbe) Probe(ctx context.Context, service string) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	status, err := p.client.Check(ctx, service)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("timeout: health rpc for %q did not complete within %v", service, p.timeout)
		}
		return fmt.Errorf("health rpc for %q failed: %w", service, err)
	}
	if status != "SERVING" {
		return fmt.Errorf("service %q unhealthy (status %s)", service, status)
	}
	return nil
}

// ProbeNearMiss checks service within the probe's timeout and explains failures in operator terms.
// ok: foldedtimeout
func (p *HealthProbe) ProbeNearMiss(ctx context.Context, service string) error {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	status, err := p.client.Check(ctx, service)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("timeout: health rpc for %q did not complete within %v: %w", service, p.timeout, err)
		}
		return fmt.Errorf("health rpc for %q failed: %w", service, err)
	}
	if status != "SERVING" {
		return fmt.Errorf("service %q unhealthy (status %s)", service, status)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// LeaderClient asks the cluster who leads.
type LeaderClient interface {
	Leader(ctx context.Context) (string, error)
}

// WaitLeader polls for a leader; it logs the context error with %v but
// returns the error itself.
// ok: foldedtimeout
func WaitLeader(ctx context.Context, c LeaderClient, every time.Duration, logger *log.Logger) (string, error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		id, err := c.Leader(ctx)
		if err == nil && id != "" {
			return id, nil
		}
		if err != nil && ctx.Err() == nil {
			logger.Printf("no leader yet: %v", err)
		}
		select {
		case <-ctx.Done():
			logger.Printf("gave up waiting for a leader: %v", ctx.Err())
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// ParsePort parses a port number. The %v cannot fold a context error: the
// only error here comes from strconv.
// ok: foldedtimeout
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("bad port %q: %v", s, err)
	}
	if n <= 0 || n > 65535 {
		return 0, fmt.Errorf("port %d out of range", n)
	}
	return n, nil
}

// StatusFor maps a handler error to an HTTP status, keeping a caller that
// went away (499) apart from a deadline (504).
// ok: foldedtimeout
func StatusFor(err error) int {
	switch {
	case err == nil:
		return http.StatusOK
	case errors.Is(err, context.Canceled):
		return 499
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case CodeOf(err) == CodeUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// StepTimeoutError reports that one pipeline step ran out of time. It keeps
// the context error it was built from.
type StepTimeoutError struct {
	Step  string
	After time.Duration
	Err   error
}

// ok: foldedtimeout
func (e *StepTimeoutError) Error() string {
	return fmt.Sprintf("step %s timed out after %s", e.Step, e.After)
}

// ok: foldedtimeout
func (e *StepTimeoutError) Unwrap() error { return e.Err }

// Timeout reports that the error is a timeout.
// ok: foldedtimeout
func (e *StepTimeoutError) Timeout() bool { return true }

// RunStep runs fn under a per-step deadline. A deadline becomes a
// StepTimeoutError that still unwraps to context.DeadlineExceeded; a
// cancellation of the parent is returned unchanged.
// ok: foldedtimeout
func RunStep(ctx context.Context, name string, d time.Duration, fn func(ctx context.Context) error) error {
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := fn(sctx)
	if err == nil {
		return nil
	}
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return &StepTimeoutError{Step: name, After: d, Err: err}
	}
	return fmt.Errorf("step %s: %w", name, err)
}
