package scope_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/internal/leakcheck"
	"github.com/cancelcheck/cancelcheck/rt/scope"
)

var errBoom = errors.New("boom")

func TestWaitAllSucceed(t *testing.T) {
	leakcheck.Check(t)
	s, ctx := scope.New(context.Background())
	var n atomic.Int32
	for i := 0; i < 10; i++ {
		s.Go("worker", func(ctx context.Context) error {
			n.Add(1)
			return nil
		})
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if n.Load() != 10 {
		t.Errorf("%d goroutines ran, want 10", n.Load())
	}
	if ctx.Err() == nil {
		t.Error("the scope's context is live after Wait")
	}
	if err := s.Wait(); err != nil {
		t.Errorf("second Wait = %v", err)
	}
}

func TestFirstErrorCancelsOthers(t *testing.T) {
	leakcheck.Check(t)
	s, ctx := scope.New(context.Background())
	s.Go("waiter", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	s.Go("failer", func(ctx context.Context) error { return errBoom })
	err := s.Wait()
	var se *scope.Error
	if !errors.As(err, &se) || se.Name != "failer" || !errors.Is(err, errBoom) {
		t.Fatalf("Wait = %v, want failer's boom", err)
	}
	if err.Error() != "failer: boom" {
		t.Errorf("message = %q", err.Error())
	}
	if !errors.Is(context.Cause(ctx), errBoom) {
		t.Errorf("Cause = %v, want boom", context.Cause(ctx))
	}
}

func TestParentCancel(t *testing.T) {
	leakcheck.Check(t)
	parent, cancel := context.WithCancel(context.Background())
	s, _ := scope.New(parent)
	s.Go("blocked", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	cancel()
	if err := s.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want Canceled", err)
	}
}

func TestZeroScope(t *testing.T) {
	leakcheck.Check(t)
	var s scope.Scope
	var got context.Context
	s.Go("a", func(ctx context.Context) error { got = ctx; return nil })
	s.Go("b", func(ctx context.Context) error { return errBoom })
	if err := s.Wait(); !errors.Is(err, errBoom) {
		t.Errorf("Wait = %v", err)
	}
	if got != context.Background() {
		t.Errorf("zero Scope passed %v, want context.Background()", got)
	}
}

func TestGoAfterWaitPanics(t *testing.T) {
	s, _ := scope.New(context.Background())
	_ = s.Wait()
	defer func() {
		if v := recover(); v != "scope: Go called after Wait" {
			t.Errorf("recovered %v", v)
		}
	}()
	s.Go("late", func(context.Context) error { return nil })
	t.Error("Go after Wait did not panic")
}

func TestGoFromChildDuringWait(t *testing.T) {
	leakcheck.Check(t)
	s, _ := scope.New(context.Background())
	var n atomic.Int32
	release := make(chan struct{})
	s.Go("parent", func(ctx context.Context) error {
		<-release // Wait is (probably) blocked by now
		s.Go("child", func(ctx context.Context) error { n.Add(1); return nil })
		return nil
	})
	go close(release)
	if err := s.Wait(); err != nil || n.Load() != 1 {
		t.Errorf("Wait = %v with %d children run", err, n.Load())
	}
}

func TestPanicReraisedInWait(t *testing.T) {
	leakcheck.Check(t)
	s, ctx := scope.New(context.Background())
	s.Go("sibling", func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	s.Go("crasher", func(ctx context.Context) error { return panicHere() })
	p := catch(func() { _ = s.Wait() })
	pe, ok := p.(*scope.PanicError)
	if !ok {
		t.Fatalf("Wait panicked with %T %v, want *PanicError", p, p)
	}
	if pe.Name != "crasher" || pe.Value != "kaboom" {
		t.Errorf("PanicError = %q, %v", pe.Name, pe.Value)
	}
	if !strings.Contains(string(pe.Stack), "panicHere") {
		t.Errorf("stack does not show where the panic happened:\n%s", pe.Stack)
	}
	if !strings.Contains(pe.Error(), `goroutine "crasher" panicked: kaboom`) {
		t.Errorf("Error() = %q", pe.Error())
	}
	var cause *scope.PanicError
	if !errors.As(context.Cause(ctx), &cause) || cause != pe {
		t.Errorf("Cause = %v, want the PanicError", context.Cause(ctx))
	}
}

func panicHere() error { panic("kaboom") }

func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestPanicWithError(t *testing.T) {
	s, _ := scope.New(context.Background())
	s.Go("x", func(context.Context) error { panic(errBoom) })
	pe, _ := catch(func() { _ = s.Wait() }).(*scope.PanicError)
	if pe == nil || !errors.Is(pe, errBoom) {
		t.Errorf("PanicError %v does not unwrap to its error value", pe)
	}
	s2, _ := scope.New(context.Background())
	s2.Go("nil", func(context.Context) error { panic(nil) })
	pe, _ = catch(func() { _ = s2.Wait() }).(*scope.PanicError)
	var pn *runtime.PanicNilError
	if pe == nil || !errors.As(pe, &pn) {
		t.Errorf("panic(nil) gave %v, want a PanicError holding *runtime.PanicNilError", pe)
	}
}

func TestGoexit(t *testing.T) {
	leakcheck.Check(t)
	s, _ := scope.New(context.Background())
	s.Go("quitter", func(context.Context) error { runtime.Goexit(); return nil })
	if err := s.Wait(); !errors.Is(err, scope.ErrGoexit) {
		t.Errorf("Wait = %v, want ErrGoexit", err)
	}
}

func TestWaitTimeoutReportsLeaks(t *testing.T) {
	leakcheck.Check(t)
	s, ctx := scope.New(context.Background())
	stuck := make(chan struct{})
	s.Go("quick", func(context.Context) error { return nil })
	s.Go("stuck", func(context.Context) error { <-stuck; return nil }) // ignores ctx
	s.Go("polite", func(ctx context.Context) error { <-ctx.Done(); <-stuck; return nil })
	err := s.WaitTimeout(5 * time.Millisecond)
	var le *scope.LeakError
	if !errors.As(err, &le) {
		t.Fatalf("WaitTimeout = %v, want *LeakError", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LeakError does not match DeadlineExceeded")
	}
	var names []string
	for _, r := range le.Running {
		names = append(names, r.Name)
		if !strings.HasSuffix(r.Site[:strings.LastIndex(r.Site, ":")], "scope_test.go") || !strings.Contains(r.Func, "TestWaitTimeoutReportsLeaks") {
			t.Errorf("%s: site %q in %q, want this test", r.Name, r.Site, r.Func)
		}
	}
	// "quick" has normally finished, but on a loaded machine it may not
	// have been scheduled within the timeout.
	if got := strings.Join(names, ","); got != "polite,stuck" && got != "polite,stuck,quick" {
		t.Errorf("running = %v, want polite,stuck", names)
	}
	if !strings.Contains(le.Stacks, "TestWaitTimeoutReportsLeaks") {
		t.Errorf("Stacks do not show the stuck goroutines:\n%s", le.Stacks)
	}
	if !strings.Contains(err.Error(), `"stuck" started at`) {
		t.Errorf("Error() = %q", err.Error())
	}
	if ctx.Err() == nil {
		t.Error("giving up did not cancel the scope")
	}
	close(stuck)
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after release = %v", err)
	}
}

func TestWaitContextInTime(t *testing.T) {
	leakcheck.Check(t)
	s, _ := scope.New(context.Background())
	s.Go("fast", func(context.Context) error { return errBoom })
	if err := s.WaitContext(context.Background()); !errors.Is(err, errBoom) {
		t.Errorf("WaitContext = %v", err)
	}
	s2, _ := scope.New(context.Background())
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s2.WaitContext(ended); err != nil {
		t.Errorf("WaitContext(ended) with nothing running = %v, want nil", err)
	}
}

func TestConcurrentWaiters(t *testing.T) {
	leakcheck.Check(t)
	s, _ := scope.New(context.Background())
	release := make(chan struct{})
	s.Go("w", func(context.Context) error { <-release; return errBoom })
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		i := i
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.Wait() }()
	}
	close(release)
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, errBoom) {
			t.Errorf("waiter got %v", err)
		}
	}
}
