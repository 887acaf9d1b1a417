package scope

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
)

// A Scope is a set of goroutines started by [Scope.Go] and waited for by
// [Scope.Wait]. A zero Scope is valid: its goroutines get
// [context.Background] and a failure cancels nothing. A Scope must not be
// copied after first use.
type Scope struct {
	ctx    context.Context         // nil in a zero Scope
	cancel context.CancelCauseFunc // nil in a zero Scope

	mu     sync.Mutex
	head   *task         // running goroutines, a doubly linked list
	n      int           // number of running goroutines
	idle   chan struct{} // closed when n drops to 0; made by waiters
	err    error         // first failure
	panic  *PanicError   // first panic
	waited bool          // a wait returned with nothing running
}

// task is one goroutine started by Go.
type task struct {
	name       string
	pc         [1]uintptr // the caller of Go
	prev, next *task
}

// New returns a Scope whose goroutines run under a context derived from
// ctx. That context is canceled, with the failure as its cause, when a
// goroutine returns an error or panics, and with the result of Wait (or
// [context.Canceled] if it is nil) once Wait returns.
func New(ctx context.Context) (*Scope, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &Scope{ctx: ctx, cancel: cancel}, ctx
}

// Go calls f in a new goroutine with the scope's context. The name
// identifies the goroutine in errors, panics and leak reports.
//
// The first goroutine to return a non-nil error or to panic cancels the
// scope's context; its error, wrapped in an [*Error] naming it, is what
// Wait returns. Go may be called from the scope's own goroutines, also
// while Wait is blocked. Go panics with "scope: Go called after Wait" once
// a Wait has returned.
func (s *Scope) Go(name string, f func(ctx context.Context) error) {
	t := &task{name: name}
	runtime.Callers(2, t.pc[:])
	s.mu.Lock()
	if s.waited {
		s.mu.Unlock()
		panic("scope: Go called after Wait")
	}
	t.next = s.head
	if s.head != nil {
		s.head.prev = t
	}
	s.head = t
	s.n++
	s.mu.Unlock()
	go s.run(t, f)
}

func (s *Scope) run(t *task, f func(ctx context.Context) error) {
	normal := false
	defer func() {
		if !normal {
			// Since Go 1.21 even panic(nil) recovers a non-nil value, so nil
			// here means the goroutine called runtime.Goexit.
			if v := recover(); v != nil {
				s.fail(nil, &PanicError{Name: t.name, Value: v, Stack: debug.Stack()})
			} else {
				s.fail(&Error{Name: t.name, Err: ErrGoexit}, nil)
			}
		}
		s.finish(t)
	}()
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := f(ctx)
	normal = true
	if err != nil {
		s.fail(&Error{Name: t.name, Err: err}, nil)
	}
}

// fail records the first error and the first panic and cancels the scope.
func (s *Scope) fail(err error, p *PanicError) {
	s.mu.Lock()
	if err != nil && s.err == nil {
		s.err = err
	}
	if p != nil && s.panic == nil {
		s.panic = p
	}
	s.mu.Unlock()
	if s.cancel != nil {
		if p != nil {
			s.cancel(p)
		} else {
			s.cancel(err)
		}
	}
}

func (s *Scope) finish(t *task) {
	s.mu.Lock()
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		s.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	s.n--
	if s.n == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

// Wait blocks until every goroutine started by Go has returned, cancels
// the scope's context, and returns the first error. If a goroutine
// panicked, Wait panics with its [*PanicError] instead, whatever the
// errors. Once Wait has returned, later calls return the same result.
func (s *Scope) Wait() error {
	return s.wait(context.Background())
}

// wait waits for the goroutines, or returns the leak report if giveUp ends
// first.
func (s *Scope) wait(giveUp context.Context) error {
	done := giveUp.Done()
	for {
		s.mu.Lock()
		if s.n == 0 {
			s.waited = true
			err, p := s.err, s.panic
			s.mu.Unlock()
			if s.cancel != nil {
				s.cancel(err)
			}
			if p != nil {
				panic(p)
			}
			return err
		}
		if s.idle == nil {
			s.idle = make(chan struct{})
		}
		idle := s.idle
		s.mu.Unlock()
		select {
		case <-idle:
		case <-done:
			if err := s.abandon(giveUp); err != nil {
				return err
			}
			// Everything finished as the wait gave up: report that
			// normally on the next round.
		}
	}
}
