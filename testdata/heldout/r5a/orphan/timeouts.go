package orphan

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// Checker is one health check.
type Checker interface {
	Check(ctx context.Context) error
}

// TimeoutChecker bounds a checker by the caller's context.
type TimeoutChecker struct {
	name    string
	checker Checker
}

// Check runs the wrapped check in a goroutine and returns early when ctx ends. The result channel is
// unbuffered, so when the deadline wins the checker goroutine can never deliver its result and stays
// blocked forever, one per timed-out probe.
// From: etherlabsio/healthcheck#28
// bug: orphansend
func (t *TimeoutChecker) Check(ctx context.Context) error {
	ch := make(chan error)
	go func() { ch <- t.checker.Check(ctx) }()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return fmt.Errorf("check %s: %w", t.name, ctx.Err())
	}
}

// CheckBuffered declares the channel with a buffer of one, the fix proposed in the report.
// ok: orphansend
func (t *TimeoutChecker) CheckBuffered(ctx context.Context) error {
	ch := make(chan error, 1)
	go func() { ch <- t.checker.Check(ctx) }()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return fmt.Errorf("check %s: %w", t.name, ctx.Err())
	}
}

// ErrTimedOut is returned by Deadline.Run when the work does not finish in time.
var ErrTimedOut = errors.New("deadline: timed out waiting for function to finish")

// Deadline bounds work by a fixed timeout.
type Deadline struct {
	timeout time.Duration
}

// Run runs work with a stopper channel it closes on timeout. The work goroutine's final send on the
// unbuffered result channel ignores the stopper, so after a timeout it blocks forever.
// From: eapache/go-resiliency#23
// bug: orphansend
func (d *Deadline) Run(work func(stopper <-chan struct{}) error) error {
	result := make(chan error)
	stopper := make(chan struct{})
	go func() {
		result <- work(stopper)
	}()
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case err := <-result:
		return err
	case <-t.C:
		close(stopper)
		return ErrTimedOut
	}
}

// RunStoppable sends the result in a select that also watches the stopper, which Run closes when
// it gives up, so the goroutine always has a way out.
// ok: orphansend
func (d *Deadline) RunStoppable(work func(stopper <-chan struct{}) error) error {
	result := make(chan error)
	stopper := make(chan struct{})
	go func() {
		err := work(stopper)
		select {
		case result <- err:
		case <-stopper:
		}
	}()
	t := time.NewTimer(d.timeout)
	defer t.Stop()
	select {
	case err := <-result:
		return err
	case <-t.C:
		close(stopper)
		return ErrTimedOut
	}
}

// ErrProbeTimeout marks a discovery probe that did not answer in time.
var ErrProbeTimeout = errors.New("discovery probe timed out")

// APIService is one aggregated API.
type APIService struct {
	Name         string
	DiscoveryURL string
}

// AvailabilityController probes aggregated APIs.
type AvailabilityController struct {
	timeout time.Duration
	probe   func(ctx context.Context, url string) error
}

// ProbeAll probes each service with a fresh error channel per iteration and moves on when the
// per-service timer fires. A timed-out probe's goroutine is left blocked on that iteration's
// unbuffered channel, so a slow backend leaks one goroutine per sync.
// From: kubernetes/kubernetes#91160
// bug: orphansend
func (c *AvailabilityController) ProbeAll(ctx context.Context, svcs []APIService) (map[string]error, error) {
	status := make(map[string]error, len(svcs))
	for _, svc := range svcs {
		if err := ctx.Err(); err != nil {
			return status, err
		}
		errCh := make(chan error)
		go func() { errCh <- c.probe(ctx, svc.DiscoveryURL) }()
		t := time.NewTimer(c.timeout)
		select {
		case err := <-errCh:
			status[svc.Name] = err
		case <-t.C:
			status[svc.Name] = ErrProbeTimeout
		}
		t.Stop()
	}
	return status, nil
}

// ProbeAllBuffered gives each per-iteration channel one slot, as the Kubernetes fix did.
// ok: orphansend
func (c *AvailabilityController) ProbeAllBuffered(ctx context.Context, svcs []APIService) (map[string]error, error) {
	status := make(map[string]error, len(svcs))
	for _, svc := range svcs {
		if err := ctx.Err(); err != nil {
			return status, err
		}
		errCh := make(chan error, 1)
		go func() { errCh <- c.probe(ctx, svc.DiscoveryURL) }()
		t := time.NewTimer(c.timeout)
		select {
		case err := <-errCh:
			status[svc.Name] = err
		case <-t.C:
			status[svc.Name] = ErrProbeTimeout
		}
		t.Stop()
	}
	return status, nil
}

// ErrHandlerTimeout is returned when a request handler does not answer in time.
var ErrHandlerTimeout = errors.New("handler timed out")

// Request and Response are one RPC exchange on a connection.
type Request struct {
	ID   string
	Body []byte
}

// Response is the handler's answer.
type Response struct {
	ID   string
	Body []byte
}

// Handler answers requests.
type Handler interface {
	Handle(ctx context.Context, req *Request) *Response
}

// connHandler serves every request of one client connection; connCtx lives as long as the
// connection, which can be hours.
type connHandler struct {
	connCtx context.Context
	inner   Handler
	timeout time.Duration
}

// handleOne guards the reply send with a select on the connection context, but gives up on its own
// timer without canceling anything the sender watches. After a timeout the sender waits on a context
// that stays live for the whole connection, one blocked goroutine per slow request.
// From: kubernetes/kubernetes#83372
// bug: orphansend
func (c *connHandler) handleOne(req *Request) (*Response, error) {
	resCh := make(chan *Response)
	go func() {
		resp := c.inner.Handle(c.connCtx, req)
		select {
		case resCh <- resp:
		case <-c.connCtx.Done():
		}
	}()
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case resp := <-resCh:
		return resp, nil
	case <-t.C:
		return nil, fmt.Errorf("request %s: %w", req.ID, ErrHandlerTimeout)
	}
}

// handleOneDeadline derives the per-request deadline as a context and gives up on that same context,
// so when the receiver leaves, the sender's guard fires too.
// ok: orphansend
func (c *connHandler) handleOneDeadline(req *Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(c.connCtx, c.timeout)
	defer cancel()
	resCh := make(chan *Response)
	go func() {
		resp := c.inner.Handle(ctx, req)
		select {
		case resCh <- resp:
		case <-ctx.Done():
		}
	}()
	select {
	case resp := <-resCh:
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("request %s: %w", req.ID, ctx.Err())
	}
}

// ErrShellTimeout is returned when an interactive command runs too long.
var ErrShellTimeout = errors.New("shell command timed out")

// ShellSession is one started command on an implant.
type ShellSession struct {
	cmd *exec.Cmd
}

// WaitFor waits for the command with a timer. On timeout it kills the process, which makes cmd.Wait
// return, but the goroutine then blocks sending on the unbuffered done channel nobody reads any more.
// From: BishopFox/sliver#1089
// bug: orphansend
func (s *ShellSession) WaitFor(timeout time.Duration) error {
	done := make(chan error)
	go func() { done <- s.cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		if err := s.cmd.Process.Kill(); err != nil {
			return errors.Join(ErrShellTimeout, err)
		}
		return ErrShellTimeout
	}
}

// WaitForDrained keeps the unbuffered channel but, after killing the process on timeout, receives
// the goroutine's result before returning, so the sender always finds its receiver.
// ok: orphansend
func (s *ShellSession) WaitForDrained(timeout time.Duration) error {
	done := make(chan error)
	go func() { done <- s.cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		killErr := s.cmd.Process.Kill()
		<-done
		if killErr != nil {
			return errors.Join(ErrShellTimeout, killErr)
		}
		return ErrShellTimeout
	}
}

// Wait is a WaitGroup that can be waited on with a timeout.
type Wait struct {
	wg sync.WaitGroup
}

// Add adds delta to the counter.
// ok: orphansend
func (w *Wait) Add(delta int) { w.wg.Add(delta) }

// Done decrements the counter.
// ok: orphansend
func (w *Wait) Done() { w.wg.Done() }

// WaitWithTimeout reports whether the timeout elapsed first. The helper goroutine signals completion
// with a send on an unbuffered channel; if the timer won, that send blocks forever once the group
// finally drains.
// From: HDT3213/godis#31
// bug: orphansend
func (w *Wait) WaitWithTimeout(timeout time.Duration) bool {
	c := make(chan struct{})
	go func() {
		w.wg.Wait()
		c <- struct{}{}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c:
		return false
	case <-t.C:
		return true
	}
}

// WaitWithTimeoutClosed signals completion by closing the channel, which never blocks.
// ok: orphansend
func (w *Wait) WaitWithTimeoutClosed(timeout time.Duration) bool {
	c := make(chan struct{})
	go func() {
		defer close(c)
		w.wg.Wait()
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c:
		return false
	case <-t.C:
		return true
	}
}
