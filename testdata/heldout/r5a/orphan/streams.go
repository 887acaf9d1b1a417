package orphan

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"time"
)

// Record is one stored key/value.
type Record struct {
	Key   string
	Value []byte
}

// Store walks records in key order.
type Store struct {
	walk func(ctx context.Context, prefix string, fn func(Record) bool) error
}

// scanItem is what the walker goroutine hands to the iterator.
type scanItem struct {
	rec Record
	err error
}

// Scan exposes the walk as a range-over-func iterator fed by a producer goroutine. When the loop
// body breaks, yield returns false and the iterator returns, but the producer is still trying to
// send the next record on the unbuffered channel; with no receiver left it blocks forever.
// From: jwilder/dockerize#324
// bug: orphansend
func (s *Store) Scan(ctx context.Context, prefix string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		ch := make(chan scanItem)
		go func() {
			defer close(ch)
			err := s.walk(ctx, prefix, func(r Record) bool {
				ch <- scanItem{rec: r}
				return true
			})
			if err != nil {
				ch <- scanItem{err: err}
			}
		}()
		for it := range ch {
			if !yield(it.rec, it.err) {
				return
			}
		}
	}
}

// ScanStoppable closes a done channel when the iterator returns for any reason, and the producer
// selects on it around every send and stops walking, so an early break always releases it.
// ok: orphansend
func (s *Store) ScanStoppable(ctx context.Context, prefix string) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		ch := make(chan scanItem)
		done := make(chan struct{})
		defer close(done)
		go func() {
			defer close(ch)
			err := s.walk(ctx, prefix, func(r Record) bool {
				select {
				case ch <- scanItem{rec: r}:
					return true
				case <-done:
					return false
				}
			})
			if err != nil {
				select {
				case ch <- scanItem{err: err}:
				case <-done:
				}
			}
		}()
		for it := range ch {
			if !yield(it.rec, it.err) {
				return
			}
		}
	}
}

// Evaluable is a compiled expression.
type Evaluable func(ctx context.Context, params map[string]any) (any, error)

// EvaluateWithContext runs expr in a goroutine so a context deadline can interrupt the caller. The
// value channel has a slot, but the error channel does not: when ctx ends first the expression
// usually fails with that same cancellation, and its send on errCh blocks forever.
// From: PaesslerAG/gval#107
// bug: orphansend
func EvaluateWithContext(ctx context.Context, expr Evaluable, params map[string]any) (any, error) {
	resCh := make(chan any, 1)
	errCh := make(chan error)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				errCh <- fmt.Errorf("expression panicked: %v", r)
			}
		}()
		v, err := expr(ctx, params)
		if err != nil {
			errCh <- err
			return
		}
		resCh <- v
	}()
	select {
	case v := <-resCh:
		return v, nil
	case err := <-errCh:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// EvaluateWithContextBuffered gives both channels one slot; exactly one of them is sent on, so the
// goroutine always finishes.
// ok: orphansend
func EvaluateWithContextBuffered(ctx context.Context, expr Evaluable, params map[string]any) (any, error) {
	resCh := make(chan any, 1)
	errCh := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				errCh <- fmt.Errorf("expression panicked: %v", r)
			}
		}()
		v, err := expr(ctx, params)
		if err != nil {
			errCh <- err
			return
		}
		resCh <- v
	}()
	select {
	case v := <-resCh:
		return v, nil
	case err := <-errCh:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ErrBackoffExhausted is returned once the policy allows no more attempts.
var ErrBackoffExhausted = errors.New("backoff: attempts exhausted")

// Policy yields the delay before each attempt; ok is false once attempts are exhausted.
type Policy interface {
	Delay(attempt int) (d time.Duration, ok bool)
}

// Controller paces retries: a pump goroutine ticks c.next after each delay.
type Controller struct {
	next     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	policy   Policy
}

// StartController starts the unguarded pump.
// ok: orphansend
func StartController(p Policy) *Controller {
	c := &Controller{next: make(chan struct{}), stop: make(chan struct{}), policy: p}
	go c.pump()
	return c
}

// StartGuardedController starts the guarded pump.
// ok: orphansend
func StartGuardedController(p Policy) *Controller {
	c := &Controller{next: make(chan struct{}), stop: make(chan struct{}), policy: p}
	go c.pumpGuarded()
	return c
}

// pump waits out each delay while watching stop, but then sends on c.next with a bare send. A
// consumer that gave up on its context and called Stop is no longer receiving, so the pump sits in
// that send forever.
// From: lestrrat-go/backoff#30
// bug: orphansend
func (c *Controller) pump() {
	defer close(c.next)
	for attempt := 0; ; attempt++ {
		d, ok := c.policy.Delay(attempt)
		if !ok {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.stop:
			t.Stop()
			return
		}
		c.next <- struct{}{}
	}
}

// pumpGuarded puts the send in a select with c.stop, the upstream fix.
// ok: orphansend
func (c *Controller) pumpGuarded() {
	defer close(c.next)
	for attempt := 0; ; attempt++ {
		d, ok := c.policy.Delay(attempt)
		if !ok {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.stop:
			t.Stop()
			return
		}
		select {
		case c.next <- struct{}{}:
		case <-c.stop:
			return
		}
	}
}

// Next blocks until the next attempt is due, attempts run out, or ctx ends.
// ok: orphansend
func (c *Controller) Next(ctx context.Context) error {
	select {
	case _, ok := <-c.next:
		if !ok {
			return ErrBackoffExhausted
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop tells the pump to quit.
// ok: orphansend
func (c *Controller) Stop() {
	c.stopOnce.Do(func() { close(c.stop) })
}

// reply is one in-process RPC answer.
type reply struct {
	resp []byte
	err  error
}

// InProcServer dispatches RPCs to handlers in the same process.
type InProcServer struct {
	handlers map[string]func(ctx context.Context, req []byte) ([]byte, error)
}

// deliver runs the handler and hands the reply to the waiting client. Its send ignores ctx although
// the client side returns on ctx.Done, so a canceled or timed-out RPC leaves this goroutine blocked
// on replyCh for good.
// From: fullstorydev/grpchan#17
// bug: orphansend
func (s *InProcServer) deliver(ctx context.Context, method string, req []byte, replyCh chan<- reply) {
	resp, err := s.handlers[method](ctx, req)
	replyCh <- reply{resp: resp, err: err}
}

// deliverGuarded sends the reply in a select on the same ctx the client gives up on, as the fix did.
// ok: orphansend
func (s *InProcServer) deliverGuarded(ctx context.Context, method string, req []byte, replyCh chan<- reply) {
	resp, err := s.handlers[method](ctx, req)
	select {
	case replyCh <- reply{resp: resp, err: err}:
	case <-ctx.Done():
	}
}

// Invoke starts deliver and waits for its reply or for ctx.
// ok: orphansend
func (s *InProcServer) Invoke(ctx context.Context, method string, req []byte) ([]byte, error) {
	replyCh := make(chan reply)
	go s.deliver(ctx, method, req, replyCh)
	select {
	case r := <-replyCh:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// InvokeGuarded starts deliverGuarded and waits for its reply or for ctx.
// ok: orphansend
func (s *InProcServer) InvokeGuarded(ctx context.Context, method string, req []byte) ([]byte, error) {
	replyCh := make(chan reply)
	go s.deliverGuarded(ctx, method, req, replyCh)
	select {
	case r := <-replyCh:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
