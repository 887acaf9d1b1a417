// Package folded holds code where context.Canceled and
// context.DeadlineExceeded lose their identity on the way to the caller.
package folded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------------------
// Task-queue matching handler

// ServiceErrorCode classifies errors returned over RPC.
type ServiceErrorCode int

// Service error codes.
const (
	CodeInternal ServiceErrorCode = iota
	CodeNotFound
	CodeDeadlineExceeded
	CodeCanceled
)

// ServiceError is the error type sent back to RPC callers.
type ServiceError struct {
	Code    ServiceErrorCode
	Message string
	cause   error
}

// Error returns the message.
//
// ok: foldedtimeout
func (e *ServiceError) Error() string {
	return e.Message
}

// Unwrap exposes the error the service error was built from, if any.
//
// ok: foldedtimeout
func (e *ServiceError) Unwrap() error {
	return e.cause
}

// MatchingHandler fronts the matching engine.
type MatchingHandler struct {
	serverErrors atomic.Int64
	timeouts     atomic.Int64
}

// handleErr converts an engine error into the RPC error sent to the frontend.
// From: temporalio/temporal#953
// a context.DeadlineExceeded or context.Canceled from a poll is rebuilt as an Internal ServiceError from err.Error(), so the frontend sees a server failure and errors.Is no longer finds the context error
//
// bug: foldedtimeout
func (h *MatchingHandler) handleErr(err error) error {
	if err == nil {
		return nil
	}
	var svcErr *ServiceError
	if errors.As(err, &svcErr) {
		return err
	}
	h.serverErrors.Add(1)
	return &ServiceError{Code: CodeInternal, Message: err.Error()}
}

// handleErrNearMiss is handleErr mapping context errors to their own codes and keeping the cause.
// From: temporalio/temporal#953
//
// ok: foldedtimeout
func (h *MatchingHandler) handleErrNearMiss(err error) error {
	if err == nil {
		return nil
	}
	var svcErr *ServiceError
	switch {
	case errors.As(err, &svcErr):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		h.timeouts.Add(1)
		return &ServiceError{Code: CodeDeadlineExceeded, Message: err.Error(), cause: err}
	case errors.Is(err, context.Canceled):
		h.timeouts.Add(1)
		return &ServiceError{Code: CodeCanceled, Message: err.Error(), cause: err}
	default:
		h.serverErrors.Add(1)
		return &ServiceError{Code: CodeInternal, Message: err.Error(), cause: err}
	}
}

// ---------------------------------------------------------------------------
// API server per-request deadline filter

// Errors returned to clients by the deadline filter.
var (
	ErrRequestTimeout  = errors.New("apiserver: request did not complete within the allowed duration")
	ErrRequestCanceled = errors.New("apiserver: request was canceled by the client")
)

// TimeoutFilter bounds every request handler by a fixed duration.
type TimeoutFilter struct {
	timeout      time.Duration
	postTimeouts atomic.Int64
}

// Run executes fn under the request deadline and maps a dead context to the API error.
// From: kubernetes/kubernetes#116871
// every dead context is reported as ErrRequestTimeout and counted as a timeout, so a client that disconnected is logged and answered as if the server were slow
//
// bug: foldedtimeout
func (f *TimeoutFilter) Run(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	if cerr := ctx.Err(); cerr != nil {
		f.postTimeouts.Add(1)
		return fmt.Errorf("%w: %w", ErrRequestTimeout, cerr)
	}
	return err
}

// RunNearMiss is Run distinguishing deadline expiry from client cancellation.
// From: kubernetes/kubernetes#116871
//
// ok: foldedtimeout
func (f *TimeoutFilter) RunNearMiss(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	switch cerr := ctx.Err(); {
	case errors.Is(cerr, context.DeadlineExceeded):
		f.postTimeouts.Add(1)
		return fmt.Errorf("%w: %w", ErrRequestTimeout, cerr)
	case errors.Is(cerr, context.Canceled):
		return fmt.Errorf("%w: %w", ErrRequestCanceled, cerr)
	default:
		return err
	}
}

// ---------------------------------------------------------------------------
// RPC tracing interceptor

// Span is a finished-on-return tracing span.
type Span struct {
	mu       sync.Mutex
	Name     string
	Err      error
	Finished bool
}

// SetError marks the span as failed.
//
// ok: foldedtimeout
func (s *Span) SetError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Err = err
}

// Finish closes the span.
//
// ok: foldedtimeout
func (s *Span) Finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Finished = true
}

// Tracer starts spans around RPC handlers.
type Tracer struct {
	mu    sync.Mutex
	spans []*Span
}

// start opens a span for method.
//
// ok: foldedtimeout
func (t *Tracer) start(method string) *Span {
	s := &Span{Name: method}
	t.mu.Lock()
	t.spans = append(t.spans, s)
	t.mu.Unlock()
	return s
}

// Intercept runs handler inside a span, flagging real failures on the span.
// From: DataDog/dd-trace-go#1201
// the cancellation check uses err != context.Canceled, so a handler error wrapping context.Canceled ("fetch user: context canceled") is recorded as a span error
//
// bug: foldedtimeout
func (t *Tracer) Intercept(ctx context.Context, method string, handler func(context.Context) error) error {
	span := t.start(method)
	defer span.Finish()
	err := handler(ctx)
	if err != nil && err != context.Canceled {
		span.SetError(err)
	}
	return err
}

// InterceptNearMiss is Intercept testing for cancellation with errors.Is.
// From: DataDog/dd-trace-go#1201
//
// ok: foldedtimeout
func (t *Tracer) InterceptNearMiss(ctx context.Context, method string, handler func(context.Context) error) error {
	span := t.start(method)
	defer span.Finish()
	err := handler(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		span.SetError(err)
	}
	return err
}

// ---------------------------------------------------------------------------
// Retry helper error type

// ContextError is returned by the retry helper when the context ends while it
// is still retrying; it carries the context error and the last attempt's error.
type ContextError struct {
	CtxErr  error
	FuncErr error
}

// Error describes both the context error and the last attempt's failure.
//
// ok: foldedtimeout
func (e *ContextError) Error() string {
	return fmt.Sprintf("%v; last error: %v", e.CtxErr, e.FuncErr)
}

// ContextErrorNearMiss is ContextError exposing both causes to errors.Is.
type ContextErrorNearMiss struct {
	CtxErr  error
	FuncErr error
}

// Error describes both the context error and the last attempt's failure.
//
// ok: foldedtimeout
func (e *ContextErrorNearMiss) Error() string {
	return fmt.Sprintf("%v; last error: %v", e.CtxErr, e.FuncErr)
}

// Unwrap exposes the context error and the last attempt's error.
//
// ok: foldedtimeout
func (e *ContextErrorNearMiss) Unwrap() []error {
	return []error{e.CtxErr, e.FuncErr}
}

// Call retries f until it succeeds, fails permanently, or ctx ends.
// From: google/go-cloud#1591
// a retry stopped by the context is reported as a *ContextError, which has no Unwrap or Is method, so errors.Is(err, context.Canceled) is false and callers must type-assert to see the cancellation
//
// bug: foldedtimeout
func Call(ctx context.Context, delay time.Duration, isRetryable func(error) bool, f func(context.Context) error) error {
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if !isRetryable(err) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return &ContextError{CtxErr: ctx.Err(), FuncErr: err}
		case <-t.C:
		}
	}
}

// CallNearMiss is Call returning an error type that unwraps to the context error.
// From: google/go-cloud#1591
//
// ok: foldedtimeout
func CallNearMiss(ctx context.Context, delay time.Duration, isRetryable func(error) bool, f func(context.Context) error) error {
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		if !isRetryable(err) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return &ContextErrorNearMiss{CtxErr: ctx.Err(), FuncErr: err}
		case <-t.C:
		}
	}
}

// ---------------------------------------------------------------------------
// Generated API client send-and-retry

// Backoff produces successive retry pauses.
type Backoff interface {
	Pause() time.Duration
}

// APIClient sends requests to a Google-style REST API.
type APIClient struct {
	hc *http.Client
}

// statusError reports a retryable HTTP status.
type statusError struct {
	code int
}

// Error formats the status.
//
// ok: foldedtimeout
func (e *statusError) Error() string {
	return fmt.Sprintf("googleapi: got HTTP response code %d", e.code)
}

// retryableStatus reports whether the server asked to be retried.
//
// ok: foldedtimeout
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// sendAndRetry sends req until it gets a non-retryable answer or ctx ends.
// From: googleapis/google-api-go-client#1684
// when ctx ends during the backoff the previous attempt's 503 error is returned instead of the context error, so the caller cannot tell a cancelled or timed-out upload from the server giving up
//
// bug: foldedtimeout
func (c *APIClient) sendAndRetry(ctx context.Context, req *http.Request, bo Backoff) (*http.Response, error) {
	var lastErr error
	var pause time.Duration
	for {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			if lastErr == nil {
				lastErr = ctx.Err()
			}
			return nil, lastErr
		case <-t.C:
		}
		resp, err := c.hc.Do(req.WithContext(ctx))
		switch {
		case err != nil:
			lastErr = err
		case retryableStatus(resp.StatusCode):
			resp.Body.Close()
			lastErr = &statusError{code: resp.StatusCode}
		default:
			return resp, nil
		}
		pause = bo.Pause()
	}
}

// sendAndRetryNearMiss is sendAndRetry wrapping the context error together with the last failure.
// From: googleapis/google-api-go-client#1684
//
// ok: foldedtimeout
func (c *APIClient) sendAndRetryNearMiss(ctx context.Context, req *http.Request, bo Backoff) (*http.Response, error) {
	var lastErr error
	var pause time.Duration
	for {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			if lastErr == nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("retry aborted: %w (last error: %w)", ctx.Err(), lastErr)
		case <-t.C:
		}
		resp, err := c.hc.Do(req.WithContext(ctx))
		switch {
		case err != nil:
			lastErr = err
		case retryableStatus(resp.StatusCode):
			resp.Body.Close()
			lastErr = &statusError{code: resp.StatusCode}
		default:
			return resp, nil
		}
		pause = bo.Pause()
	}
}

// ---------------------------------------------------------------------------
// Quorum call configuration

// State is a replicated register value.
type State struct {
	Value     []byte
	Timestamp int64
}

// Node is one replica.
type Node interface {
	Read(ctx context.Context, key string) (*State, error)
}

// QuorumCallError reports a quorum call that did not gather enough replies.
type QuorumCallError struct {
	Reason  string
	Replies int
	Cause   error
}

// Error formats the failure.
//
// ok: foldedtimeout
func (e QuorumCallError) Error() string {
	return fmt.Sprintf("quorum call error: %s (replies: %d)", e.Reason, e.Replies)
}

// Unwrap exposes the underlying cause.
//
// ok: foldedtimeout
func (e QuorumCallError) Unwrap() error {
	return e.Cause
}

// Configuration is a set of replicas read with majority quorums.
type Configuration struct {
	nodes []Node
}

// reply is one node's answer.
type reply struct {
	state *State
	err   error
}

// fanOut asks every node and returns a channel of replies plus a join function.
//
// ok: foldedtimeout
func (c *Configuration) fanOut(ctx context.Context, key string) (<-chan reply, func()) {
	replies := make(chan reply, len(c.nodes))
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := n.Read(ctx, key)
			replies <- reply{state: st, err: err}
		}()
	}
	return replies, wg.Wait
}

// Read returns the newest state seen by a majority of nodes.
// From: relab/gorums#135
// when ctx ends the call returns a QuorumCallError whose Reason is "incomplete call" and whose Cause is nil, so callers cannot detect that the failure was a cancellation or deadline
//
// bug: foldedtimeout
func (c *Configuration) Read(ctx context.Context, key string) (*State, error) {
	ctx, cancel := context.WithCancel(ctx)
	replies, join := c.fanOut(ctx, key)
	defer join()
	defer cancel()
	quorum := len(c.nodes)/2 + 1
	var (
		newest *State
		got    int
		errs   []error
	)
	for got+len(errs) < len(c.nodes) {
		select {
		case r := <-replies:
			if r.err != nil {
				errs = append(errs, r.err)
				if len(c.nodes)-len(errs) < quorum {
					return nil, QuorumCallError{Reason: "incomplete call", Replies: got, Cause: errors.Join(errs...)}
				}
				continue
			}
			got++
			if newest == nil || r.state.Timestamp > newest.Timestamp {
				newest = r.state
			}
			if got >= quorum {
				return newest, nil
			}
		case <-ctx.Done():
			return nil, QuorumCallError{Reason: "incomplete call", Replies: got}
		}
	}
	return nil, QuorumCallError{Reason: "incomplete call", Replies: got, Cause: errors.Join(errs...)}
}

// ReadNearMiss is Read carrying ctx.Err() as the cause of the quorum failure.
// From: relab/gorums#135
//
// ok: foldedtimeout
func (c *Configuration) ReadNearMiss(ctx context.Context, key string) (*State, error) {
	ctx, cancel := context.WithCancel(ctx)
	replies, join := c.fanOut(ctx, key)
	defer join()
	defer cancel()
	quorum := len(c.nodes)/2 + 1
	var (
		newest *State
		got    int
		errs   []error
	)
	for got+len(errs) < len(c.nodes) {
		select {
		case r := <-replies:
			if r.err != nil {
				errs = append(errs, r.err)
				if len(c.nodes)-len(errs) < quorum {
					return nil, QuorumCallError{Reason: "incomplete call", Replies: got, Cause: errors.Join(errs...)}
				}
				continue
			}
			got++
			if newest == nil || r.state.Timestamp > newest.Timestamp {
				newest = r.state
			}
			if got >= quorum {
				return newest, nil
			}
		case <-ctx.Done():
			return nil, QuorumCallError{Reason: ctx.Err().Error(), Replies: got, Cause: ctx.Err()}
		}
	}
	return nil, QuorumCallError{Reason: "incomplete call", Replies: got, Cause: errors.Join(errs...)}
}
