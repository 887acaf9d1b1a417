package scope

import (
	"bytes"
	"context"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

// WaitContext is [Scope.Wait] for a waiter with limited patience. If every
// goroutine returns before ctx ends, it behaves as Wait. Otherwise it
// cancels the scope's context, with ctx's error as the cause, and returns
// at once a [*LeakError] listing the goroutines still running. It does not
// wait for them: a later Wait or WaitContext can.
func (s *Scope) WaitContext(ctx context.Context) error {
	return s.wait(ctx)
}

// WaitTimeout is [Scope.WaitContext] with a context that ends after d.
func (s *Scope) WaitTimeout(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return s.wait(ctx)
}

// A LeakError reports the goroutines of a [Scope] that were still running
// when [Scope.WaitContext] gave up.
type LeakError struct {
	// Cause is why the wait gave up: [stop.Err] of its context.
	Cause error
	// Running lists the goroutines still running, most recently started
	// first.
	Running []Running
	// Stacks holds the stacks, as printed by [runtime.Stack], of every
	// goroutine that any Scope started and that was still running when
	// the report was made.
	Stacks string
}

// Running describes one goroutine in a [LeakError].
type Running struct {
	Name string
	Site string // file:line of the call to Scope.Go
	Func string // the function that called Scope.Go
}

func (e *LeakError) Error() string {
	var b strings.Builder
	b.WriteString("scope: gave up waiting (")
	b.WriteString(e.Cause.Error())
	b.WriteString(") with ")
	b.WriteString(strconv.Itoa(len(e.Running)))
	b.WriteString(" goroutine(s) still running:")
	for i, r := range e.Running {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		b.WriteString(strconv.Quote(r.Name))
		b.WriteString(" started at ")
		b.WriteString(r.Site)
	}
	return b.String()
}

// Unwrap returns Cause.
func (e *LeakError) Unwrap() error { return e.Cause }

// abandon cancels the scope and returns the leak report, or nil if
// nothing is running any more.
func (s *Scope) abandon(ctx context.Context) error {
	cause := stop.Err(ctx)
	e := &LeakError{Cause: cause}
	s.mu.Lock()
	for t := s.head; t != nil; t = t.next {
		r := Running{Name: t.name}
		if t.pc[0] != 0 {
			f, _ := runtime.CallersFrames(t.pc[:]).Next()
			r.Site = f.File + ":" + strconv.Itoa(f.Line)
			r.Func = f.Function
		}
		e.Running = append(e.Running, r)
	}
	s.mu.Unlock()
	if len(e.Running) == 0 {
		return nil
	}
	if s.cancel != nil {
		s.cancel(cause)
	}
	e.Stacks = scopeStacks()
	return e
}

// createdBy is how a stack dump names the function that starts the
// goroutines of every Scope.
var createdBy = []byte("created by " + reflect.TypeOf(Scope{}).PkgPath() + ".(*Scope).Go")

// scopeStacks returns the stacks of the goroutines started by Scope.Go.
func scopeStacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 16<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []byte
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, createdBy) {
			out = append(out, g...)
			out = append(out, "\n\n"...)
		}
	}
	return string(bytes.TrimSpace(out))
}
