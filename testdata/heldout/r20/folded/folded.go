// Package folded holds cases where context.DeadlineExceeded or
// context.Canceled lose their identity on the way to the caller.
package folded

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Cluster client (etcd-io/etcd#4586)

// ErrClusterUnavailable is returned when no endpoint answered.
var ErrClusterUnavailable = errors.New("client: etcd cluster is unavailable or misconfigured")

// endpointClient sends one request to one member.
type endpointClient interface {
	Do(ctx context.Context, req *http.Request) (*http.Response, error)
	Endpoint() string
}

// ClusterClient fans a request out over cluster members until one answers.
type ClusterClient struct {
	members []endpointClient
}

// NewClusterClient builds a client over members.
//
// ok: foldedtimeout
func NewClusterClient(members ...endpointClient) *ClusterClient {
	return &ClusterClient{members: members}
}

// Do tries each member in turn.
// From: etcd-io/etcd#4586
// member errors arrive wrapped in *url.Error, so the == comparison never
// matches; a header timeout moves on to the next member and finally surfaces
// as ErrClusterUnavailable instead of context.DeadlineExceeded
//
// bug: foldedtimeout
func (c *ClusterClient) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	var errs []error
	for _, m := range c.members {
		resp, err := m.Do(ctx, req)
		if err == nil {
			return resp, nil
		}
		if err == context.Canceled || err == context.DeadlineExceeded {
			return nil, err
		}
		errs = append(errs, fmt.Errorf("%s: %v", m.Endpoint(), err))
	}
	return nil, fmt.Errorf("%w: %v", ErrClusterUnavailable, errors.Join(errs...))
}

// DoNearMiss stops on context errors detected with errors.Is.
// From: etcd-io/etcd#4586
//
// ok: foldedtimeout
func (c *ClusterClient) DoNearMiss(ctx context.Context, req *http.Request) (*http.Response, error) {
	var errs []error
	for _, m := range c.members {
		resp, err := m.Do(ctx, req)
		if err == nil {
			return resp, nil
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		errs = append(errs, fmt.Errorf("%s: %v", m.Endpoint(), err))
	}
	return nil, fmt.Errorf("%w: %v", ErrClusterUnavailable, errors.Join(errs...))
}

// wrapURLError mimics net/http wrapping of transport errors.
//
// ok: foldedtimeout
func wrapURLError(req *http.Request, err error) error {
	return &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
}

// ---------------------------------------------------------------------------
// Retrieval event classification (filecoin-project/lassie#385)

// FailureKind classifies a failed retrieval for metrics and events.
type FailureKind int

// Failure kinds.
const (
	FailureOther FailureKind = iota
	FailureTimeout
	FailureCancelled
)

// RetrievalEvent is emitted when a retrieval from one provider ends.
type RetrievalEvent struct {
	Provider string
	Kind     FailureKind
	Err      error
}

// Reporter collects retrieval events.
type Reporter struct {
	events chan<- RetrievalEvent
}

// NewReporter builds a reporter that publishes to events.
//
// ok: foldedtimeout
func NewReporter(events chan<- RetrievalEvent) *Reporter {
	return &Reporter{events: events}
}

// ReportFailure classifies err and publishes an event.
// From: filecoin-project/lassie#385
// the copied check tests context.Canceled and labels it FailureTimeout, so a
// retrieval cancelled by the caller is reported as a provider timeout
//
// bug: foldedtimeout
func (r *Reporter) ReportFailure(ctx context.Context, provider string, err error) error {
	kind := FailureOther
	switch {
	case errors.Is(err, context.Canceled):
		kind = FailureTimeout
	case errors.Is(err, context.DeadlineExceeded):
		kind = FailureTimeout
	}
	select {
	case r.events <- RetrievalEvent{Provider: provider, Kind: kind, Err: err}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ReportFailureNearMiss keeps cancellations and timeouts apart.
// From: filecoin-project/lassie#385
//
// ok: foldedtimeout
func (r *Reporter) ReportFailureNearMiss(ctx context.Context, provider string, err error) error {
	kind := FailureOther
	switch {
	case errors.Is(err, context.Canceled):
		kind = FailureCancelled
	case errors.Is(err, context.DeadlineExceeded):
		kind = FailureTimeout
	}
	select {
	case r.events <- RetrievalEvent{Provider: provider, Kind: kind, Err: err}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Solver cancellation check (moby/buildkit#4587)

// errSolveAborted is the cancel cause used when a build is aborted by the user.
var errSolveAborted = fmt.Errorf("solve aborted by client: %w", context.Canceled)

// Solver runs build jobs.
type Solver struct {
	mu   sync.Mutex
	jobs map[string]context.CancelCauseFunc
}

// NewSolver builds an empty solver.
//
// ok: foldedtimeout
func NewSolver() *Solver {
	return &Solver{jobs: make(map[string]context.CancelCauseFunc)}
}

// Abort cancels a running job with errSolveAborted.
//
// ok: foldedtimeout
func (s *Solver) Abort(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cancel, ok := s.jobs[id]; ok {
		cancel(errSolveAborted)
		delete(s.jobs, id)
	}
}

// IsCanceled reports whether err, returned from a job run under ctx, is due
// to cancellation rather than a real build failure.
// From: moby/buildkit#4587
// the cause set by Abort wraps context.Canceled, so comparing it with == is
// false and an aborted build is treated as a failed one
//
// bug: foldedtimeout
func IsCanceled(ctx context.Context, err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	return ctx.Err() != nil && context.Cause(ctx) == context.Canceled
}

// IsCanceledNearMiss matches the cause with errors.Is.
// From: moby/buildkit#4587
//
// ok: foldedtimeout
func IsCanceledNearMiss(ctx context.Context, err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled)
}

// ---------------------------------------------------------------------------
// Host client dialing (valyala/fasthttp#1175)

// HostClient keeps connections to one upstream host.
type HostClient struct {
	Addr   string
	dialer net.Dialer
}

// NewHostClient builds a host client.
//
// ok: foldedtimeout
func NewHostClient(addr string, timeout time.Duration) *HostClient {
	return &HostClient{Addr: addr, dialer: net.Dialer{Timeout: timeout}}
}

// dialHost opens a new connection to the upstream.
// From: valyala/fasthttp#1175
// the dial error is formatted with %v, so a dial cut short by the request
// deadline no longer matches errors.Is(err, context.DeadlineExceeded)
//
// bug: foldedtimeout
func (c *HostClient) dialHost(ctx context.Context) (net.Conn, error) {
	conn, err := c.dialer.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot dial %q: %v", c.Addr, err)
	}
	return conn, nil
}

// dialHostNearMiss wraps the dial error with %w.
// From: valyala/fasthttp#1175
//
// ok: foldedtimeout
func (c *HostClient) dialHostNearMiss(ctx context.Context) (net.Conn, error) {
	conn, err := c.dialer.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot dial %q: %w", c.Addr, err)
	}
	return conn, nil
}

// Ping dials and immediately closes a connection, reporting reachability.
//
// ok: foldedtimeout
func (c *HostClient) Ping(ctx context.Context) error {
	conn, err := c.dialHostNearMiss(ctx)
	if err != nil {
		return err
	}
	return conn.Close()
}

// ---------------------------------------------------------------------------
// Retry with backoff (Icinga/icingadb#719)

// RetryableFunc decides whether err is worth another attempt.
type RetryableFunc func(error) bool

// BackoffFunc returns the wait before attempt n.
type BackoffFunc func(n int) time.Duration

// WithBackoff runs op until it succeeds, fails permanently, or ctx ends.
// From: Icinga/icingadb#719
// when ctx ends while waiting, the last operation error is returned as
// "can't retry", so the caller sees a non-retryable failure and the deadline
// is no longer visible to errors.Is
//
// bug: foldedtimeout
func WithBackoff(ctx context.Context, op func(context.Context) error, retryable RetryableFunc, backoff BackoffFunc) error {
	for attempt := 0; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("can't retry: %w", err)
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("can't retry: %w", err)
		}
	}
}

// WithBackoffNearMiss returns the context error, keeping the last error as
// extra detail.
// From: Icinga/icingadb#719
//
// ok: foldedtimeout
func WithBackoffNearMiss(ctx context.Context, op func(context.Context) error, retryable RetryableFunc, backoff BackoffFunc) error {
	for attempt := 0; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if !retryable(err) {
			return fmt.Errorf("can't retry: %w", err)
		}
		t := time.NewTimer(backoff(attempt))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("retry aborted after %d attempts: %w; last error: %w", attempt+1, ctx.Err(), err)
		}
	}
}

// ---------------------------------------------------------------------------
// Remote execution worker (please-build/mettle#247)

// StatusError is an error the worker already classified for the client.
type StatusError struct {
	Code    int
	Message string
}

// Error implements error.
//
// ok: foldedtimeout
func (e *StatusError) Error() string {
	return fmt.Sprintf("status %d: %s", e.Code, e.Message)
}

// ActionRunner executes one build action.
type ActionRunner interface {
	Run(ctx context.Context, digest string) error
}

// Worker executes actions and reports their outcome.
type Worker struct {
	runner  ActionRunner
	timeout time.Duration
}

// NewWorker builds a worker.
//
// ok: foldedtimeout
func NewWorker(runner ActionRunner, timeout time.Duration) *Worker {
	return &Worker{runner: runner, timeout: timeout}
}

// Execute runs one action under the worker timeout.
// From: please-build/mettle#247
// any unclassified error is flattened with errors.New(err.Error()), so an
// action that hit its timeout no longer matches context.DeadlineExceeded and
// the scheduler does not retry it
//
// bug: foldedtimeout
func (w *Worker) Execute(ctx context.Context, digest string) error {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	err := w.runner.Run(ctx, digest)
	if err == nil {
		return nil
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	return errors.New("action " + digest + ": " + err.Error())
}

// ExecuteNearMiss wraps unclassified errors with %w.
// From: please-build/mettle#247
//
// ok: foldedtimeout
func (w *Worker) ExecuteNearMiss(ctx context.Context, digest string) error {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	err := w.runner.Run(ctx, digest)
	if err == nil {
		return nil
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	return fmt.Errorf("action %s: %w", digest, err)
}
