// Package folded holds cases where context.Canceled / DeadlineExceeded lose
// their identity for errors.Is, or one is reported as the other.
package folded

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// mafredri/cdp#123: protocol operation errors.

// Conn sends one DevTools protocol command.
type Conn interface {
	Invoke(ctx context.Context, method string, args, reply any) error
}

// OpError describes a failed protocol operation.
type OpError struct {
	Domain string
	Op     string
	Err    error
}

// Error formats the operation and its cause.
// ok: foldedtimeout
func (e *OpError) Error() string {
	return fmt.Sprintf("cdp.%s: %s: %v", e.Domain, e.Op, e.Err)
}

// RuntimeClient is the Runtime domain client.
type RuntimeClient struct {
	conn Conn
}

// CallFunctionOn invokes Runtime.callFunctionOn.
// From: mafredri/cdp#123
// The context error is stored in OpError, which has no Unwrap, so
// errors.Is(err, context.DeadlineExceeded) is false for a timed-out call.
// bug: foldedtimeout
func (c *RuntimeClient) CallFunctionOn(ctx context.Context, args map[string]any) (json.RawMessage, error) {
	var reply json.RawMessage
	if err := c.conn.Invoke(ctx, "Runtime.callFunctionOn", args, &reply); err != nil {
		return nil, &OpError{Domain: "Runtime", Op: "CallFunctionOn", Err: err}
	}
	return reply, nil
}

// InvokeError is the fixed error type: it exposes its cause.
type InvokeError struct {
	Domain string
	Op     string
	Err    error
}

// Error formats the operation and its cause.
// ok: foldedtimeout
func (e *InvokeError) Error() string {
	return fmt.Sprintf("cdp.%s: %s: %v", e.Domain, e.Op, e.Err)
}

// Unwrap returns the underlying error so errors.Is sees context errors.
// ok: foldedtimeout
func (e *InvokeError) Unwrap() error { return e.Err }

// Evaluate invokes Runtime.evaluate and wraps failures in InvokeError.
// From: mafredri/cdp#123
// ok: foldedtimeout
func (c *RuntimeClient) Evaluate(ctx context.Context, expr string) (json.RawMessage, error) {
	var reply json.RawMessage
	args := map[string]any{"expression": expr, "returnByValue": true}
	if err := c.conn.Invoke(ctx, "Runtime.evaluate", args, &reply); err != nil {
		return nil, &InvokeError{Domain: "Runtime", Op: "Evaluate", Err: err}
	}
	return reply, nil
}

// ---------------------------------------------------------------------------
// marusama/semaphore#1: acquiring a weighted semaphore.

// ErrCtxDone was returned by Acquire when the context ended.
var ErrCtxDone = errors.New("semaphore: ctx is done")

// Semaphore is a counting semaphore with context-aware Acquire.
type Semaphore struct {
	mu        sync.Mutex
	limit     int
	count     int
	broadcast chan struct{}
}

// NewSemaphore returns a semaphore with the given limit.
// ok: foldedtimeout
func NewSemaphore(limit int) *Semaphore {
	return &Semaphore{limit: limit, broadcast: make(chan struct{})}
}

// tryAcquire takes n permits if available and returns the wake channel.
// ok: foldedtimeout
func (s *Semaphore) tryAcquire(n int) (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.count+n <= s.limit {
		s.count += n
		return true, nil
	}
	return false, s.broadcast
}

// Release returns n permits and wakes waiters.
// ok: foldedtimeout
func (s *Semaphore) Release(n int) {
	s.mu.Lock()
	s.count -= n
	if s.count < 0 {
		s.mu.Unlock()
		panic("semaphore: released more than held")
	}
	close(s.broadcast)
	s.broadcast = make(chan struct{})
	s.mu.Unlock()
}

// Acquire blocks until n permits are available or ctx is done.
// From: marusama/semaphore#1
// A private sentinel replaces ctx.Err(), so callers cannot tell a deadline
// from a cancel and errors.Is(err, context.DeadlineExceeded) never matches.
// bug: foldedtimeout
func (s *Semaphore) Acquire(ctx context.Context, n int) error {
	if n > s.limit {
		return fmt.Errorf("semaphore: acquire %d exceeds limit %d", n, s.limit)
	}
	for {
		ok, wake := s.tryAcquire(n)
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrCtxDone
		case <-wake:
		}
	}
}

// AcquireCtx is the fixed Acquire: it returns the context's own error.
// From: marusama/semaphore#1
// ok: foldedtimeout
func (s *Semaphore) AcquireCtx(ctx context.Context, n int) error {
	if n > s.limit {
		return fmt.Errorf("semaphore: acquire %d exceeds limit %d", n, s.limit)
	}
	for {
		ok, wake := s.tryAcquire(n)
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// ---------------------------------------------------------------------------
// kubernetes/perf-tests#4166: watch-list consumer exiting on shutdown.

// Event is one watch event.
type Event struct {
	Type string
	Name string
}

// WatchConsumer counts the objects received from a watch-list stream.
type WatchConsumer struct {
	handle func(Event)
}

// isContextDoneErr reports whether err is a normal shutdown.
// ok: foldedtimeout
func isContextDoneErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Consume reads events until the stream closes or ctx ends.
// From: kubernetes/perf-tests#4166
// ctx.Err() is formatted with %v, so isContextDoneErr does not recognise the
// shutdown and the caller treats a normal stop as fatal.
// bug: foldedtimeout
func (w *WatchConsumer) Consume(ctx context.Context, events <-chan Event) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, fmt.Errorf("watch stopped after %d events: %v", n, ctx.Err())
		case ev, ok := <-events:
			if !ok {
				return n, errors.New("watch channel closed by server")
			}
			w.handle(ev)
			n++
		}
	}
}

// ConsumeWrapped wraps ctx.Err() with %w.
// From: kubernetes/perf-tests#4166
// ok: foldedtimeout
func (w *WatchConsumer) ConsumeWrapped(ctx context.Context, events <-chan Event) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, fmt.Errorf("watch stopped after %d events: %w", n, ctx.Err())
		case ev, ok := <-events:
			if !ok {
				return n, errors.New("watch channel closed by server")
			}
			w.handle(ev)
			n++
		}
	}
}

// Run consumes the stream and exits cleanly on shutdown.
// ok: foldedtimeout
func (w *WatchConsumer) Run(ctx context.Context, events <-chan Event) error {
	n, err := w.ConsumeWrapped(ctx, events)
	if isContextDoneErr(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("after %d events: %w", n, err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// block/ftl#4233: cancellation causes that hide context.Canceled.

// Deployment is a running module deployment.
type Deployment struct {
	Key    string
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Supervisor owns deployments and their lifetimes.
type Supervisor struct {
	mu          sync.Mutex
	deployments map[string]*Deployment
}

// Start creates a deployment whose context the supervisor can cancel.
// ok: foldedtimeout
func (s *Supervisor) Start(parent context.Context, key string) *Deployment {
	ctx, cancel := context.WithCancelCause(parent)
	d := &Deployment{Key: key, ctx: ctx, cancel: cancel}
	s.mu.Lock()
	s.deployments[key] = d
	s.mu.Unlock()
	return d
}

// Replace stops the old deployment because a new one supersedes it.
// From: block/ftl#4233
// The cancel cause is a bare errors.New, so context.Cause(ctx) no longer
// matches context.Canceled and workers report the replacement as a crash.
// bug: foldedtimeout
func (s *Supervisor) Replace(key string, next *Deployment) {
	s.mu.Lock()
	old := s.deployments[key]
	s.deployments[key] = next
	s.mu.Unlock()
	if old != nil {
		old.cancel(errors.New("deployment " + old.Key + " replaced by " + next.Key))
	}
}

// Stop cancels a deployment with a cause that still wraps Canceled.
// From: block/ftl#4233
// ok: foldedtimeout
func (s *Supervisor) Stop(key, reason string) {
	s.mu.Lock()
	d := s.deployments[key]
	delete(s.deployments, key)
	s.mu.Unlock()
	if d != nil {
		d.cancel(fmt.Errorf("deployment %s stopped: %s: %w", key, reason, context.Canceled))
	}
}

// exitReason classifies why a deployment's context ended.
// ok: foldedtimeout
func exitReason(d *Deployment) string {
	cause := context.Cause(d.ctx)
	switch {
	case cause == nil:
		return "running"
	case errors.Is(cause, context.Canceled):
		return "stopped"
	default:
		return "failed: " + cause.Error()
	}
}

// ---------------------------------------------------------------------------
// NVIDIA/aicr#2850: structured error codes for a dead context.

// Code classifies a structured error.
type Code string

// Structured error codes.
const (
	ErrCodeTimeout  Code = "TIMEOUT"
	ErrCodeCanceled Code = "CANCELED"
	ErrCodeInternal Code = "INTERNAL"
)

// StructuredError carries a code, a message and a cause.
type StructuredError struct {
	Code    Code
	Message string
	Cause   error
}

// Error formats the structured error.
// ok: foldedtimeout
func (e *StructuredError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("[%s] %s", e.Code, e.Message)
	}
	return fmt.Sprintf("[%s] %s: %v", e.Code, e.Message, e.Cause)
}

// Unwrap exposes the cause.
// ok: foldedtimeout
func (e *StructuredError) Unwrap() error { return e.Cause }

// Is matches another StructuredError by code.
// ok: foldedtimeout
func (e *StructuredError) Is(target error) bool {
	var t *StructuredError
	if errors.As(target, &t) {
		return t.Code == e.Code
	}
	return false
}

// Wrap builds a StructuredError.
// ok: foldedtimeout
func Wrap(code Code, msg string, cause error) error {
	return &StructuredError{Code: code, Message: msg, Cause: cause}
}

// Retryable reports whether the code is worth retrying.
// ok: foldedtimeout
func Retryable(err error) bool {
	return errors.Is(err, &StructuredError{Code: ErrCodeTimeout})
}

// Phase is one validation phase.
type Phase struct {
	Name string
	Run  func(ctx context.Context) error
}

// RunPhases runs phases in order until one fails or ctx ends.
// From: NVIDIA/aicr#2850
// A dead context is always coded TIMEOUT, so an operator's Ctrl-C is shown
// as a timeout and Retryable() schedules a retry of a deliberate abort.
// bug: foldedtimeout
func RunPhases(ctx context.Context, phases []Phase) error {
	for _, ph := range phases {
		if err := ctx.Err(); err != nil {
			return Wrap(ErrCodeTimeout, "context canceled during phase iteration", err)
		}
		if err := ph.Run(ctx); err != nil {
			return Wrap(ErrCodeInternal, "phase "+ph.Name+" failed", err)
		}
	}
	return nil
}

// contextCode picks the code that matches why ctx ended.
// ok: foldedtimeout
func contextCode(err error) Code {
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrCodeTimeout
	}
	return ErrCodeCanceled
}

// RunPhasesClassified codes a dead context by its actual reason.
// From: NVIDIA/aicr#2850
// ok: foldedtimeout
func RunPhasesClassified(ctx context.Context, phases []Phase) error {
	for _, ph := range phases {
		if err := ctx.Err(); err != nil {
			return Wrap(contextCode(err), "context ended before phase "+ph.Name, err)
		}
		if err := ph.Run(ctx); err != nil {
			return Wrap(ErrCodeInternal, "phase "+ph.Name+" failed", err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// libp2p/go-libp2p-swarm#145: dial errors for a bounded dial.

// ErrDialTimeout is returned when a dial ran out of time.
var ErrDialTimeout = errors.New("dial timed out")

// Transport opens connections to peers.
type Transport interface {
	Dial(ctx context.Context, addr string) (PeerConn, error)
}

// PeerConn is an open connection to a peer.
type PeerConn interface {
	Close() error
}

// Swarm dials peers with a per-dial timeout.
type Swarm struct {
	transport   Transport
	dialTimeout time.Duration
}

// DialAddr dials one address bounded by the swarm's dial timeout.
// From: libp2p/go-libp2p-swarm#145
// Whenever the dial context is done it answers ErrDialTimeout, so a dial the
// caller cancelled is reported as a timeout and never matches Canceled.
// bug: foldedtimeout
func (s *Swarm) DialAddr(ctx context.Context, addr string) (PeerConn, error) {
	dctx, cancel := context.WithTimeout(ctx, s.dialTimeout)
	defer cancel()
	c, err := s.transport.Dial(dctx, addr)
	if err != nil {
		if dctx.Err() != nil {
			return nil, ErrDialTimeout
		}
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return c, nil
}

// DialAddrFixed returns the caller's context error when it is the reason,
// and a timeout error that still wraps DeadlineExceeded otherwise.
// From: libp2p/go-libp2p-swarm#145
// ok: foldedtimeout
func (s *Swarm) DialAddrFixed(ctx context.Context, addr string) (PeerConn, error) {
	dctx, cancel := context.WithTimeout(ctx, s.dialTimeout)
	defer cancel()
	c, err := s.transport.Dial(dctx, addr)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if derr := dctx.Err(); derr != nil {
			return nil, fmt.Errorf("dial %s: %w: %w", addr, ErrDialTimeout, derr)
		}
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return c, nil
}
