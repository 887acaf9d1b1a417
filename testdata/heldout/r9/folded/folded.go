// Package folded holds code paths where context.Canceled and
// context.DeadlineExceeded lose their identity on the way up.
package folded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ---------------------------------------------------------------------------
// Module exit errors (wazero/wazero#1313)
// ---------------------------------------------------------------------------

// Exit codes used when a module is closed because of its context.
const (
	ExitCodeContextCanceled  uint32 = 0xffffffff
	ExitCodeDeadlineExceeded uint32 = 0xefffffff
)

// ExitError is returned when a guest module stops running.
type ExitError struct {
	exitCode uint32
	cause    error
}

// ExitCode returns the guest exit code.
// ok: foldedtimeout
func (e *ExitError) ExitCode() uint32 { return e.exitCode }

// ok: foldedtimeout
func (e *ExitError) Error() string {
	switch e.exitCode {
	case ExitCodeContextCanceled:
		return "module closed with context canceled"
	case ExitCodeDeadlineExceeded:
		return "module closed with context deadline exceeded"
	default:
		return fmt.Sprintf("module closed with exit_code(%d)", e.exitCode)
	}
}

// Unwrap exposes the underlying cause, if any.
// ok: foldedtimeout
func (e *ExitError) Unwrap() error { return e.cause }

// ModuleInstance is a running guest.
type ModuleInstance struct {
	name   string
	closed bool
	close  func(exitCode uint32)
}

// CloseWithCtxErr closes the module because its context is done and returns
// the error to hand back to the host call.
//
// From: wazero/wazero#1313
// bug: foldedtimeout
func (m *ModuleInstance) CloseWithCtxErr(ctx context.Context) error {
	code := ExitCodeContextCanceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = ExitCodeDeadlineExceeded
	}
	m.close(code)
	m.closed = true
	// The text says "context deadline exceeded", but nothing in the chain
	// is context.DeadlineExceeded, so errors.Is(err, ...) is false.
	return &ExitError{exitCode: code}
}

// CloseWithCtxErrNearMiss closes the module because its context is done.
//
// ok: foldedtimeout
func (m *ModuleInstance) CloseWithCtxErrNearMiss(ctx context.Context) error {
	code := ExitCodeContextCanceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		code = ExitCodeDeadlineExceeded
	}
	m.close(code)
	m.closed = true
	return &ExitError{exitCode: code, cause: ctx.Err()}
}

// ---------------------------------------------------------------------------
// Context-error classification (arangodb/kube-arangodb#2121)
// ---------------------------------------------------------------------------

type causer interface {
	Cause() error
}

// IsContextCanceledOrExpired reports whether err was caused by a context
// ending; the reconciler retries such errors instead of failing the action.
//
// From: arangodb/kube-arangodb#2121
// bug: foldedtimeout
func IsContextCanceledOrExpired(err error) bool {
	for err != nil {
		if err == context.Canceled || err == context.DeadlineExceeded {
			return true
		}
		// Only the pkg/errors Cause() chain is followed; a *url.Error or an
		// fmt.Errorf("%w") wrapper ends the walk and the deadline is missed.
		c, ok := err.(causer)
		if !ok {
			return false
		}
		err = c.Cause()
	}
	return false
}

// IsContextCanceledOrExpiredNearMiss reports whether err was caused by a
// context ending.
//
// ok: foldedtimeout
func IsContextCanceledOrExpiredNearMiss(err error) bool {
	for err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return true
		}
		c, ok := err.(causer)
		if !ok {
			return false
		}
		err = c.Cause()
	}
	return false
}

// ---------------------------------------------------------------------------
// Reverse proxy status mapping (zalando/skipper#687)
// ---------------------------------------------------------------------------

// StatusClientClosedRequest is nginx's non-standard 499.
const StatusClientClosedRequest = 499

// ProxyError carries the status the proxy answers with.
type ProxyError struct {
	Code int
	Err  error
}

// ok: foldedtimeout
func (e *ProxyError) Error() string {
	return fmt.Sprintf("proxy error with code %d: %v", e.Code, e.Err)
}

// ok: foldedtimeout
func (e *ProxyError) Unwrap() error { return e.Err }

// errBackendTimeout is reported when the backend did not answer in time.
var errBackendTimeout = errors.New("backend timeout")

// Proxy forwards requests to a backend.
type Proxy struct {
	transport http.RoundTripper
}

// RoundTrip forwards req and classifies failures.
//
// From: zalando/skipper#687
// bug: foldedtimeout
func (p *Proxy) RoundTrip(req *http.Request) (*http.Response, error) {
	rsp, err := p.transport.RoundTrip(req)
	if err == nil {
		return rsp, nil
	}
	if req.Context().Err() != nil {
		// Any done context is reported as a gateway timeout, including the
		// client hanging up (context.Canceled), which then shows up as a
		// 504 in metrics and access logs.
		return nil, &ProxyError{Code: http.StatusGatewayTimeout, Err: errBackendTimeout}
	}
	return nil, &ProxyError{Code: http.StatusBadGateway, Err: err}
}

// RoundTripNearMiss forwards req and classifies failures.
//
// ok: foldedtimeout
func (p *Proxy) RoundTripNearMiss(req *http.Request) (*http.Response, error) {
	rsp, err := p.transport.RoundTrip(req)
	if err == nil {
		return rsp, nil
	}
	switch ctxErr := req.Context().Err(); {
	case errors.Is(ctxErr, context.Canceled):
		return nil, &ProxyError{Code: StatusClientClosedRequest, Err: ctxErr}
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return nil, &ProxyError{Code: http.StatusGatewayTimeout, Err: fmt.Errorf("%w: %w", errBackendTimeout, ctxErr)}
	}
	return nil, &ProxyError{Code: http.StatusBadGateway, Err: err}
}

// ---------------------------------------------------------------------------
// Index fetch with a context-aware wait (m3db/m3#3278)
// ---------------------------------------------------------------------------

// errIndexQueryTimedOut is the legacy error for a fetch that did not finish.
var errIndexQueryTimedOut = errors.New("index query timed out")

// QueryResult is a batch of matching series IDs.
type QueryResult struct {
	IDs        [][]byte
	Exhaustive bool
}

// IndexShard runs queries on a background worker.
type IndexShard struct {
	submit func(q string, done chan<- QueryResult)
}

// Query waits for the shard worker to answer.
//
// From: m3db/m3#3278
// bug: foldedtimeout
func (s *IndexShard) Query(ctx context.Context, q string) (QueryResult, error) {
	done := make(chan QueryResult, 1)
	s.submit(q, done)
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		// Both a canceled and an expired context turn into the same opaque
		// sentinel; the RPC layer cannot tell them apart.
		return QueryResult{}, errIndexQueryTimedOut
	}
}

// QueryNearMiss waits for the shard worker to answer.
//
// ok: foldedtimeout
func (s *IndexShard) QueryNearMiss(ctx context.Context, q string) (QueryResult, error) {
	done := make(chan QueryResult, 1)
	s.submit(q, done)
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return QueryResult{}, fmt.Errorf("%w: %w", errIndexQueryTimedOut, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Bot API raw request (go-telegram/bot#213)
// ---------------------------------------------------------------------------

// Bot calls the Telegram Bot API.
type Bot struct {
	url    string
	token  string
	client *http.Client
}

// RawRequest performs one Bot API method call and returns the raw body.
//
// From: go-telegram/bot#213
// bug: foldedtimeout
func (b *Bot) RawRequest(ctx context.Context, method string, body io.Reader) ([]byte, error) {
	u := b.url + "/bot" + b.token + "/" + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return nil, fmt.Errorf("error create request for method %s, %v", method, err)
	}
	req.Header.Set("Content-Type", "application/json")

	resp, err := b.client.Do(req)
	if err != nil {
		// "...: context canceled" survives only as text.
		return nil, fmt.Errorf("error do request for method %s, %s", method, err.Error())
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// RawRequestNearMiss performs one Bot API method call.
//
// ok: foldedtimeout
func (b *Bot) RawRequestNearMiss(ctx context.Context, method string, body io.Reader) ([]byte, error) {
	u := b.url + "/bot" + b.token + "/" + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return nil, fmt.Errorf("error create request for method %s, %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")

	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("error do request for method %s: %w", method, err)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// ---------------------------------------------------------------------------
// Terminal controller shutdown (eminwux/sbsh#163)
// ---------------------------------------------------------------------------

// ErrContextDone is the package sentinel for a controller stopped by its
// context.
var ErrContextDone = errors.New("context has been cancelled")

// ErrOnClose is returned when closing the session failed.
var ErrOnClose = errors.New("error on close")

// Controller supervises one terminal session.
type Controller struct {
	exited  chan error
	closeFn func() error
}

// Run waits for the session to exit or the context to end.
//
// From: eminwux/sbsh#163
// bug: foldedtimeout
func (c *Controller) Run(ctx context.Context) error {
	var err error
	select {
	case exitErr := <-c.exited:
		return exitErr
	case <-ctx.Done():
		if cerr := c.closeFn(); cerr != nil {
			return fmt.Errorf("%w: %w", ErrOnClose, cerr)
		}
		// err is the never-assigned local, not ctx.Err(): the result reads
		// "context has been cancelled: %!w(<nil>)" and neither Canceled nor
		// DeadlineExceeded is in the chain.
		return fmt.Errorf("%w: %w", ErrContextDone, err)
	}
}

// RunNearMiss waits for the session to exit or the context to end.
//
// ok: foldedtimeout
func (c *Controller) RunNearMiss(ctx context.Context) error {
	select {
	case exitErr := <-c.exited:
		return exitErr
	case <-ctx.Done():
		if cerr := c.closeFn(); cerr != nil {
			return fmt.Errorf("%w: %w: %w", ErrContextDone, ctx.Err(), cerr)
		}
		return fmt.Errorf("%w: %w", ErrContextDone, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Distributed lock acquisition (minio/minio#14569)
// ---------------------------------------------------------------------------

// OperationTimedOut is returned when a lock could not be had in time.
type OperationTimedOut struct {
	cause error
}

// ok: foldedtimeout
func (OperationTimedOut) Error() string { return "Operation timed out" }

// Unwrap exposes the context error behind the timeout, if recorded.
// ok: foldedtimeout
func (e OperationTimedOut) Unwrap() error { return e.cause }

// lockClient tries to obtain a lock from the quorum.
type lockClient interface {
	TryLock(ctx context.Context, resource, owner string) (bool, error)
}

// NSLock is a namespace lock over a set of lock servers.
type NSLock struct {
	client     lockClient
	retryEvery time.Duration
}

// GetLock retries until the lock is held or ctx ends.
//
// From: minio/minio#14569
// bug: foldedtimeout
func (n *NSLock) GetLock(ctx context.Context, resource, owner string) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// A client that went away gets the same answer as a real timeout.
			return OperationTimedOut{}
		case <-t.C:
		}
		ok, err := n.client.TryLock(ctx, resource, owner)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		t.Reset(n.retryEvery)
	}
}

// GetLockNearMiss retries until the lock is held or ctx ends.
//
// ok: foldedtimeout
func (n *NSLock) GetLockNearMiss(ctx context.Context, resource, owner string) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
			return OperationTimedOut{cause: ctx.Err()}
		case <-t.C:
		}
		ok, err := n.client.TryLock(ctx, resource, owner)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		t.Reset(n.retryEvery)
	}
}

// ---------------------------------------------------------------------------
// Consistency middleware (authzed/spicedb#2581)
// ---------------------------------------------------------------------------

// Code is an RPC status code.
type Code int

// RPC status codes used here.
const (
	CodeOK Code = iota
	CodeCanceled
	CodeDeadlineExceeded
	CodeInternal
	CodeInvalidArgument
)

// StatusError is an RPC error with a code.
type StatusError struct {
	Code Code
	Msg  string
	err  error
}

// ok: foldedtimeout
func (e *StatusError) Error() string { return e.Msg }

// ok: foldedtimeout
func (e *StatusError) Unwrap() error { return e.err }

// errInvalidZedToken is returned for malformed consistency tokens.
var errInvalidZedToken = errors.New("invalid zedtoken")

// RevisionPicker picks the datastore revision for a request.
type RevisionPicker interface {
	PickRevision(ctx context.Context, token string) (string, error)
}

// ConsistencyMiddleware attaches a revision to every request.
type ConsistencyMiddleware struct {
	picker RevisionPicker
}

// AddRevisionToContext resolves the consistency requirement of a request.
//
// From: authzed/spicedb#2581
// bug: foldedtimeout
func (m *ConsistencyMiddleware) AddRevisionToContext(ctx context.Context, token string) (context.Context, error) {
	rev, err := m.picker.PickRevision(ctx, token)
	if err != nil {
		if errors.Is(err, errInvalidZedToken) {
			return nil, &StatusError{Code: CodeInvalidArgument, Msg: err.Error(), err: err}
		}
		// A canceled request becomes an opaque Internal (HTTP 500) error.
		return nil, &StatusError{Code: CodeInternal, Msg: fmt.Sprintf("failed to pick revision: %v", err)}
	}
	return context.WithValue(ctx, revisionKey{}, rev), nil
}

// AddRevisionToContextNearMiss resolves the consistency requirement.
//
// ok: foldedtimeout
func (m *ConsistencyMiddleware) AddRevisionToContextNearMiss(ctx context.Context, token string) (context.Context, error) {
	rev, err := m.picker.PickRevision(ctx, token)
	if err != nil {
		switch {
		case errors.Is(err, errInvalidZedToken):
			return nil, &StatusError{Code: CodeInvalidArgument, Msg: err.Error(), err: err}
		case errors.Is(err, context.Canceled):
			return nil, &StatusError{Code: CodeCanceled, Msg: err.Error(), err: err}
		case errors.Is(err, context.DeadlineExceeded):
			return nil, &StatusError{Code: CodeDeadlineExceeded, Msg: err.Error(), err: err}
		}
		return nil, &StatusError{Code: CodeInternal, Msg: fmt.Sprintf("failed to pick revision: %v", err), err: err}
	}
	return context.WithValue(ctx, revisionKey{}, rev), nil
}

type revisionKey struct{}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// ErrNotFound is the repository's not-found sentinel.
var ErrNotFound = errors.New("not found")

// GetUserName maps a missing row to a domain sentinel; every other error,
// including a canceled query, is wrapped with %w.
//
// ok: foldedtimeout
func GetUserName(ctx context.Context, db *sql.DB, id int64) (string, error) {
	var name string
	err := db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1", id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("get user %d: %w", id, err)
	}
	return name, nil
}

// WaitReady compares ctx.Err() with ==, which is fine: Context.Err returns
// the unwrapped sentinel values.
//
// ok: foldedtimeout
func WaitReady(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("not ready before deadline: %w", ctx.Err())
		}
		return ctx.Err()
	}
}

// ErrShuttingDown is returned when work is refused during shutdown.
var ErrShuttingDown = errors.New("shutting down")

// shutdownError is a domain error that keeps the context error reachable.
type shutdownError struct {
	cause error
}

// ok: foldedtimeout
func (e *shutdownError) Error() string { return "shutting down: " + e.cause.Error() }

// ok: foldedtimeout
func (e *shutdownError) Is(target error) bool { return target == ErrShuttingDown }

// ok: foldedtimeout
func (e *shutdownError) Unwrap() error { return e.cause }

// Submit returns a new domain error from the Done branch, but that error
// unwraps to ctx.Err().
//
// ok: foldedtimeout
func Submit(ctx context.Context, queue chan<- func(), job func()) error {
	select {
	case queue <- job:
		return nil
	case <-ctx.Done():
		return &shutdownError{cause: ctx.Err()}
	}
}

// DescribeTimeout turns an error into a user-facing message; the message is
// only logged, the original error is returned unchanged.
//
// ok: foldedtimeout
func DescribeTimeout(err error, logf func(string, ...any)) error {
	if errors.Is(err, context.DeadlineExceeded) {
		logf("request timed out: %v", err)
	}
	return err
}
