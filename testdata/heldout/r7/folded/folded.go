// Package folded holds code where context.Canceled and
// context.DeadlineExceeded lose their identity on the way up (string
// formatting, == on wrapped errors, sentinels that do not wrap the cause, a
// cancel reported as a timeout), and the near-misses that keep it.
package folded

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Code is an RPC status code.
type Code int

// Status codes recorded by the metrics middleware.
const (
	CodeOK Code = iota
	CodeCanceled
	CodeDeadline
	CodeInternal
)

// Metrics counts finished RPCs by method and code.
type Metrics struct {
	mu     sync.Mutex
	counts map[string]map[Code]int
}

// Observe maps a handler's error to a status code with a switch on the
// error value. Handlers wrap their errors ("load user 42: context
// canceled"), so a client that hung up no longer equals context.Canceled,
// falls to the default case, and is counted and alerted on as an internal
// server error.
// From: weaveworks/common#292
// bug: foldedtimeout
func (m *Metrics) Observe(method string, err error) Code {
	var code Code
	switch err {
	case nil:
		code = CodeOK
	case context.Canceled:
		code = CodeCanceled
	case context.DeadlineExceeded:
		code = CodeDeadline
	default:
		code = CodeInternal
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = make(map[string]map[Code]int)
	}
	if m.counts[method] == nil {
		m.counts[method] = make(map[Code]int)
	}
	m.counts[method][code]++
	return code
}

// ObserveWrapped classifies with errors.Is, which looks through the
// handlers' wrapping.
// ok: foldedtimeout
func (m *Metrics) ObserveWrapped(method string, err error) Code {
	var code Code
	switch {
	case err == nil:
		code = CodeOK
	case errors.Is(err, context.Canceled):
		code = CodeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		code = CodeDeadline
	default:
		code = CodeInternal
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = make(map[string]map[Code]int)
	}
	if m.counts[method] == nil {
		m.counts[method] = make(map[Code]int)
	}
	m.counts[method][code]++
	return code
}

// Step is one step of a build plan.
type Step struct {
	Name string
	Run  func(ctx context.Context) error
}

// RunParallel runs the steps of an in_parallel block and folds their
// failures into one message string. A step aborted by the user returns
// context.Canceled, but the combined error is new text, so the build
// tracker's errors.Is(err, context.Canceled) check never fires and aborted
// builds show up as failed.
// From: concourse/concourse#4851
// bug: foldedtimeout
func RunParallel(ctx context.Context, steps []Step) error {
	var (
		mu   sync.Mutex
		msgs []string
		wg   sync.WaitGroup
	)
	for _, s := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Run(ctx); err != nil {
				mu.Lock()
				msgs = append(msgs, s.Name+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(msgs) > 0 {
		return fmt.Errorf("%d parallel steps failed: %s", len(msgs), strings.Join(msgs, "; "))
	}
	return nil
}

// RunParallelJoined wraps each failure with %w and joins them with
// errors.Join, so errors.Is still finds a step's context.Canceled.
// ok: foldedtimeout
func RunParallelJoined(ctx context.Context, steps []Step) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, s := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Run(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ErrContextDone is returned when a request's context ends before the
// server answers.
var ErrContextDone = errors.New("box: context is done")

// Response is a server reply.
type Response struct {
	Data []byte
	Err  error
}

// Conn is a multiplexed connection to a database box.
type Conn struct {
	Send func(req []byte) (<-chan Response, error)
}

// Do waits for the reply or for the context. On <-ctx.Done() it returns a
// bare sentinel that does not wrap ctx.Err(), so callers cannot tell a
// deadline from a cancel, and errors.Is(err, context.DeadlineExceeded) in
// the retry policy is always false.
// From: tarantool/go-tarantool#476
// bug: foldedtimeout
func (c *Conn) Do(ctx context.Context, req []byte) ([]byte, error) {
	replies, err := c.Send(req)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	select {
	case r := <-replies:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Data, nil
	case <-ctx.Done():
		return nil, ErrContextDone
	}
}

// DoWrapped keeps the sentinel for old callers but also wraps the
// context's cause, so errors.Is works for both.
// ok: foldedtimeout
func (c *Conn) DoWrapped(ctx context.Context, req []byte) ([]byte, error) {
	replies, err := c.Send(req)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	select {
	case r := <-replies:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Data, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrContextDone, context.Cause(ctx))
	}
}

// Traverser walks a DAG of linked blocks.
type Traverser struct {
	Load  func(ctx context.Context, link string) ([]string, error)
	Visit func(link string)
}

// Walk re-creates each loader failure as a new error from its text. When
// the request is cancelled the loader returns context.Canceled, but what
// reaches the responder is a fresh error that merely reads "...: context
// canceled", so the responder reports a failed traversal instead of a
// cancelled request; the code above it has to fall back to matching strings.
// From: ipfs/go-graphsync#258
// bug: foldedtimeout
func (t *Traverser) Walk(ctx context.Context, root string) (visited int, err error) {
	queue := []string{root}
	seen := map[string]bool{root: true}
	for len(queue) > 0 {
		link := queue[0]
		queue = queue[1:]
		children, lerr := t.Load(ctx, link)
		if lerr != nil {
			return visited, errors.New("traverse " + link + ": " + lerr.Error())
		}
		t.Visit(link)
		visited++
		for _, c := range children {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	return visited, nil
}

// WalkWrapped wraps the loader error with %w.
// ok: foldedtimeout
func (t *Traverser) WalkWrapped(ctx context.Context, root string) (visited int, err error) {
	queue := []string{root}
	seen := map[string]bool{root: true}
	for len(queue) > 0 {
		link := queue[0]
		queue = queue[1:]
		children, lerr := t.Load(ctx, link)
		if lerr != nil {
			return visited, fmt.Errorf("traverse %s: %w", link, lerr)
		}
		t.Visit(link)
		visited++
		for _, c := range children {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	return visited, nil
}

// ErrTimeout reports that a host did not answer within its budget.
var ErrTimeout = errors.New("scylla: request timeout")

// HostClient talks to one node's management API.
type HostClient struct {
	Probe func(ctx context.Context, host string) error
}

// Ping gives the probe a budget and reports ErrTimeout whenever the
// context ends first, including when the operator cancelled the repair.
// The scheduler treats ErrTimeout as a flaky host and retries, so a
// cancelled repair keeps getting restarted.
// From: scylladb/scylla-manager#3035
// bug: foldedtimeout
func (c *HostClient) Ping(ctx context.Context, host string, budget time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Probe(ctx, host) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("ping %s: %w", host, ErrTimeout)
	}
}

// PingChecked reports ErrTimeout only when ctx.Err() is DeadlineExceeded
// and returns the cancellation as itself otherwise.
// ok: foldedtimeout
func (c *HostClient) PingChecked(ctx context.Context, host string, budget time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Probe(ctx, host) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("ping %s: %w: %w", host, ErrTimeout, ctx.Err())
		}
		return fmt.Errorf("ping %s: %w", host, ctx.Err())
	}
}

// Session is an interactive CLI session on a network device.
type Session struct {
	Host      string
	Prompt    string
	Write     func(ctx context.Context, line string) error
	ReadUntil func(ctx context.Context, prompt string) ([]byte, error)
}

// Exec annotates every failure in a deferred closure, but formats the
// original with %v. A read that stopped because the caller's deadline
// passed comes back as plain text, so the caller cannot tell "device
// timed out" from "device refused the command" and reports the wrong one.
// From: annetutil/gnetcli#314
// bug: foldedtimeout
func (s *Session) Exec(ctx context.Context, cmd string) (out []byte, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("device %s: exec %q: %v", s.Host, cmd, err)
		}
	}()
	if err := s.Write(ctx, cmd+"\n"); err != nil {
		return nil, err
	}
	out, err = s.ReadUntil(ctx, s.Prompt)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ExecWrapped is the same deferred annotation with %w.
// ok: foldedtimeout
func (s *Session) ExecWrapped(ctx context.Context, cmd string) (out []byte, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("device %s: exec %q: %w", s.Host, cmd, err)
		}
	}()
	if err := s.Write(ctx, cmd+"\n"); err != nil {
		return nil, err
	}
	out, err = s.ReadUntil(ctx, s.Prompt)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// JobState records why a job stopped.
type JobState struct {
	mu     sync.Mutex
	Reason string
}

// Finish compares ctx.Err() with == against the context sentinels. That is
// fine: Context.Err returns exactly context.Canceled or
// context.DeadlineExceeded, never a wrapped error, and the reason is only a
// label while the error returned is ctx.Err() itself.
// ok: foldedtimeout
func (s *JobState) Finish(ctx context.Context) error {
	err := ctx.Err()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch err {
	case nil:
		s.Reason = "completed"
	case context.Canceled:
		s.Reason = "cancelled by user"
	case context.DeadlineExceeded:
		s.Reason = "ran out of time"
	default:
		s.Reason = "stopped: " + err.Error()
	}
	return err
}

// ErrWouldExceedDeadline is returned when waiting for a token would pass the
// context's deadline. It wraps context.DeadlineExceeded.
var ErrWouldExceedDeadline = fmt.Errorf("limiter: wait would exceed deadline: %w", context.DeadlineExceeded)

// Limiter hands out one token per interval.
type Limiter struct {
	mu       sync.Mutex
	next     time.Time
	Interval time.Duration
}

// Wait returns a package sentinel without ever receiving from ctx.Done()
// when it can tell the wait is hopeless, which looks like a folded
// deadline but is not: the sentinel wraps context.DeadlineExceeded, and the
// waiting branch returns ctx.Err() itself.
// ok: foldedtimeout
func (l *Limiter) Wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	if dl, ok := ctx.Deadline(); ok && at.After(dl) {
		l.mu.Unlock()
		return ErrWouldExceedDeadline
	}
	l.next = at.Add(l.Interval)
	l.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
