package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync/atomic"
	"time"
)

// Request is an invocation forwarded to the function worker.
type Request struct {
	ID   string
	Body []byte
}

// Reply is the worker's answer.
type Reply struct {
	Status int
	Body   []byte
}

type result struct {
	reply *Reply
	err   error
}

type job struct {
	req   *Request
	reply chan<- result
}

// ErrSupervisorTimeout is returned when the worker does not answer in time.
var ErrSupervisorTimeout = errors.New("supervisor: request timed out")

// Supervisor forwards requests to a single worker loop.
type Supervisor struct {
	queue chan job
}

// Forward hands the request to the worker and waits for its reply.
// From: googlearchive/cloud-functions-go#25
// bug: foldedtimeout
func (s *Supervisor) Forward(ctx context.Context, req *Request) (*Reply, error) {
	replyc := make(chan result, 1)
	select {
	case s.queue <- job{req: req, reply: replyc}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-replyc:
		return r.reply, r.err
	case <-ctx.Done():
		return nil, ErrSupervisorTimeout
	}
}

// ForwardNearMiss wraps the context error alongside the sentinel.
// ok: foldedtimeout
func (s *Supervisor) ForwardNearMiss(ctx context.Context, req *Request) (*Reply, error) {
	replyc := make(chan result, 1)
	select {
	case s.queue <- job{req: req, reply: replyc}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-replyc:
		return r.reply, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrSupervisorTimeout, ctx.Err())
	}
}

// GraphQLError is one entry of a GraphQL errors array.
type GraphQLError struct {
	Message    string
	Extensions map[string]any
	err        error
}

// GraphQLErrors is the errors array of a GraphQL response.
type GraphQLErrors []GraphQLError

// Error joins the messages.
// ok: foldedtimeout
func (e GraphQLErrors) Error() string {
	msgs := make([]string, 0, len(e))
	for _, ge := range e {
		msgs = append(msgs, ge.Message)
	}
	return strings.Join(msgs, "; ")
}

// unwrappableGraphQLErrors is GraphQLErrors with Unwrap.
type unwrappableGraphQLErrors []GraphQLError

// Error joins the messages.
// ok: foldedtimeout
func (e unwrappableGraphQLErrors) Error() string {
	return GraphQLErrors(e).Error()
}

// Unwrap returns the underlying errors of the entries that carry one.
// ok: foldedtimeout
func (e unwrappableGraphQLErrors) Unwrap() []error {
	var errs []error
	for _, ge := range e {
		if ge.err != nil {
			errs = append(errs, ge.err)
		}
	}
	return errs
}

// GQLTransport posts a query and returns the raw response.
type GQLTransport interface {
	Post(ctx context.Context, query string, vars map[string]any) ([]byte, error)
}

// GQLClient is a small GraphQL client.
type GQLClient struct {
	t      GQLTransport
	decode func(raw []byte, out any) error
}

// Query runs a GraphQL query and decodes the data into out.
// From: hasura/go-graphql-client#127
// bug: foldedtimeout
func (c *GQLClient) Query(ctx context.Context, q string, vars map[string]any, out any) error {
	raw, err := c.t.Post(ctx, q, vars)
	if err != nil {
		return GraphQLErrors{{
			Message:    err.Error(),
			Extensions: map[string]any{"code": "request_error"},
		}}
	}
	return c.decode(raw, out)
}

// QueryNearMiss keeps the transport error reachable through Unwrap.
// ok: foldedtimeout
func (c *GQLClient) QueryNearMiss(ctx context.Context, q string, vars map[string]any, out any) error {
	raw, err := c.t.Post(ctx, q, vars)
	if err != nil {
		return unwrappableGraphQLErrors{{
			Message:    err.Error(),
			Extensions: map[string]any{"code": "request_error"},
			err:        err,
		}}
	}
	return c.decode(raw, out)
}

// Action is a key-value request.
type Action struct {
	Method string
	Key    string
}

// KVResponse is a key-value reply.
type KVResponse struct {
	Index uint64
	Value string
}

// EndpointClient talks to one cluster member.
type EndpointClient interface {
	Do(ctx context.Context, act Action) (*KVResponse, error)
}

// ClusterError aggregates failures from every endpoint.
type ClusterError struct {
	Errors []error
}

// Error summarises the per-endpoint failures.
// ok: foldedtimeout
func (ce *ClusterError) Error() string {
	var b strings.Builder
	b.WriteString("client: etcd cluster is unavailable or misconfigured")
	for i, err := range ce.Errors {
		fmt.Fprintf(&b, "; error #%d: %s", i, err)
	}
	return b.String()
}

// ClusterClient fans a request out over the members until one answers.
type ClusterClient struct {
	members []EndpointClient
}

// Do tries each member in turn.
// From: etcd-io/etcd#3262
// bug: foldedtimeout
func (c *ClusterClient) Do(ctx context.Context, act Action) (*KVResponse, error) {
	cerr := &ClusterError{}
	for _, m := range c.members {
		resp, err := m.Do(ctx, act)
		if err != nil {
			cerr.Errors = append(cerr.Errors, err)
			if ctx.Err() != nil {
				return nil, cerr
			}
			continue
		}
		return resp, nil
	}
	return nil, cerr
}

// DoNearMiss returns the context error itself once the caller's context is done.
// ok: foldedtimeout
func (c *ClusterClient) DoNearMiss(ctx context.Context, act Action) (*KVResponse, error) {
	cerr := &ClusterError{}
	for _, m := range c.members {
		resp, err := m.Do(ctx, act)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			cerr.Errors = append(cerr.Errors, err)
			continue
		}
		return resp, nil
	}
	return nil, cerr
}

// Code is an API status code.
type Code int

// Status codes.
const (
	CodeInternal Code = iota + 1
	CodeCanceled
	CodeDeadlineExceeded
)

// StatusError is an API error with a status code.
type StatusError struct {
	Code  Code
	Msg   string
	Cause error
}

// Error returns the message.
// ok: foldedtimeout
func (s *StatusError) Error() string { return fmt.Sprintf("code %d: %s", s.Code, s.Msg) }

// Unwrap returns the cause, if recorded.
// ok: foldedtimeout
func (s *StatusError) Unwrap() error { return s.Cause }

// codeFor maps an error to a status code.
// ok: foldedtimeout
func codeFor(err error) Code {
	switch {
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return CodeDeadlineExceeded
	default:
		return CodeInternal
	}
}

// Handler handles one API call.
type Handler func(ctx context.Context, req any) (any, error)

// ErrorInterceptor converts handler errors into status errors.
// From: raystack/frontier#718
// bug: foldedtimeout
func ErrorInterceptor(next Handler, logger *log.Logger) Handler {
	return func(ctx context.Context, req any) (any, error) {
		resp, err := next(ctx, req)
		if err == nil {
			return resp, nil
		}
		logger.Printf("handler error: %v", err)
		var se *StatusError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &StatusError{Code: CodeInternal, Msg: err.Error()}
	}
}

// ErrorInterceptorNearMiss maps the code from the cause and keeps the cause.
// ok: foldedtimeout
func ErrorInterceptorNearMiss(next Handler, logger *log.Logger) Handler {
	return func(ctx context.Context, req any) (any, error) {
		resp, err := next(ctx, req)
		if err == nil {
			return resp, nil
		}
		logger.Printf("handler error: %v", err)
		var se *StatusError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &StatusError{Code: codeFor(err), Msg: err.Error(), Cause: err}
	}
}

// ErrHandlerTimeout reports that a handler exceeded its time budget.
var ErrHandlerTimeout = errors.New("handler timeout")

// TimeoutGuard runs calls with a time budget and counts timeouts.
type TimeoutGuard struct {
	budget   time.Duration
	timeouts atomic.Int64
}

// Run runs call within the budget.
// From: vearne/gin-timeout#23
// bug: foldedtimeout
func (t *TimeoutGuard) Run(ctx context.Context, call func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, t.budget)
	defer cancel()
	err := call(cctx)
	if cctx.Err() != nil {
		t.timeouts.Add(1)
		return fmt.Errorf("%w after %s", ErrHandlerTimeout, t.budget)
	}
	return err
}

// RunNearMiss only reports a timeout when the deadline passed, and keeps the cause.
// ok: foldedtimeout
func (t *TimeoutGuard) RunNearMiss(ctx context.Context, call func(ctx context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, t.budget)
	defer cancel()
	err := call(cctx)
	if cerr := cctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			t.timeouts.Add(1)
			return fmt.Errorf("%w after %s: %w", ErrHandlerTimeout, t.budget, cerr)
		}
		return cerr
	}
	return err
}
