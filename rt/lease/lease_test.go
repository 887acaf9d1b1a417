package lease_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/internal/leakcheck"
	"github.com/cancelcheck/cancelcheck/rt/lease"
	"github.com/cancelcheck/cancelcheck/rt/stop"
)

var errClose = errors.New("close failed")

func TestReleaseExactlyOnce(t *testing.T) {
	var calls atomic.Int32
	l := lease.Owned(func(context.Context) error { calls.Add(1); return nil })
	if l.State() != lease.Held || !l.Owns() || !l.Borrow().Held() {
		t.Fatalf("new lease: state %v, owns %v", l.State(), l.Owns())
	}
	var wg sync.WaitGroup
	var nils atomic.Int32
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch err := l.Release(context.Background()); err {
			case nil:
				nils.Add(1)
			case lease.ErrReleased:
			default:
				t.Errorf("Release = %v", err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 || nils.Load() != 1 {
		t.Errorf("cleanup ran %d times, %d Release calls saw success; want 1 and 1", calls.Load(), nils.Load())
	}
	if l.State() != lease.Released || l.Borrow().Held() {
		t.Errorf("state = %v, want released", l.State())
	}
}

func TestZeroLease(t *testing.T) {
	var l lease.Lease
	var nl *lease.Lease
	if l.Release(context.Background()) != nil || nl.Release(context.Background()) != nil {
		t.Error("Release of an empty lease returned an error")
	}
	if l.Owns() || nl.Owns() || l.State() != lease.Released || nl.State() != lease.Released {
		t.Error("an empty lease claims to hold something")
	}
	if (lease.Borrowed{}).State() != lease.Released {
		t.Error("zero Borrowed is not released")
	}
	if lease.Owned(nil).Release(context.Background()) != nil {
		t.Error("Owned(nil).Release failed")
	}
	if tr := l.Transfer(); tr.Owns() {
		t.Error("Transfer of an empty lease returned an owner")
	}
}

func TestTransfer(t *testing.T) {
	var calls int
	old := lease.Owned(func(context.Context) error { calls++; return nil })
	view := old.Borrow()
	owner := old.Transfer()
	if old.Owns() || !owner.Owns() {
		t.Fatalf("after Transfer: old owns %v, new owns %v", old.Owns(), owner.Owns())
	}
	if err := old.Release(context.Background()); err != lease.ErrNotOwner {
		t.Errorf("old.Release = %v, want ErrNotOwner", err)
	}
	if calls != 0 || !view.Held() {
		t.Fatal("releasing the inert lease ran the cleanup")
	}
	if again := old.Transfer(); again.Owns() || again.Release(context.Background()) != lease.ErrNotOwner {
		t.Error("transferring an inert lease produced an owner")
	}
	if err := owner.Release(context.Background()); err != nil || calls != 1 {
		t.Errorf("owner.Release = %v, cleanup ran %d times", err, calls)
	}
	if view.State() != lease.Released {
		t.Errorf("borrowed view sees %v after the new owner released", view.State())
	}
}

func TestFailedIsFinal(t *testing.T) {
	var calls int
	l := lease.Owned(func(context.Context) error { calls++; return errClose })
	if err := l.Release(context.Background()); err != errClose {
		t.Fatalf("Release = %v, want errClose", err)
	}
	if l.State() != lease.Failed {
		t.Errorf("state = %v, want failed", l.State())
	}
	if err := l.Release(context.Background()); err != lease.ErrReleased || calls != 1 {
		t.Errorf("second Release = %v after %d calls", err, calls)
	}
}

// slowClose is a cleanup that takes longer than its callers allow until
// fixed is set.
type slowClose struct {
	fixed atomic.Bool
	calls atomic.Int32
}

func (s *slowClose) release(ctx context.Context) error {
	s.calls.Add(1)
	if s.fixed.Load() {
		return nil
	}
	<-ctx.Done()
	return errors.Join(errClose, ctx.Err())
}

func TestCanceledReleaseIsPending(t *testing.T) {
	leakcheck.Check(t)
	sc := &slowClose{}
	l := lease.Owned(sc.release)
	ctx, cancel := stop.WithTimeout(context.Background(), time.Millisecond, stop.ErrShutdown)
	defer cancel()
	err := l.Release(ctx)
	var pe *lease.PendingError
	if !errors.As(err, &pe) || pe.Reaper {
		t.Fatalf("Release = %v, want *PendingError without reaper", err)
	}
	for _, target := range []error{lease.ErrPending, errClose, context.DeadlineExceeded, stop.ErrShutdown} {
		if !errors.Is(err, target) {
			t.Errorf("Release error %v does not match %v", err, target)
		}
	}
	if l.State() != lease.Pending {
		t.Errorf("state = %v, want pending", l.State())
	}
	// The owner may try again.
	sc.fixed.Store(true)
	if err := l.Release(context.Background()); err != nil || l.State() != lease.Released {
		t.Errorf("retry = %v, state %v", err, l.State())
	}
	if err := l.Release(context.Background()); err != lease.ErrReleased {
		t.Errorf("Release after success = %v", err)
	}
}

func TestReaper(t *testing.T) {
	leakcheck.Check(t)
	var r lease.Reaper
	sc := &slowClose{}
	l := r.Owned(sc.release)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := l.Release(ended)
	var pe *lease.PendingError
	if !errors.As(err, &pe) || !pe.Reaper || r.Len() != 1 {
		t.Fatalf("Release = %v with %d queued, want a queued PendingError", err, r.Len())
	}
	// Released again by its owner while queued, still failing: not queued twice.
	_ = l.Release(ended)
	if r.Len() != 1 {
		t.Errorf("queued %d times, want once", r.Len())
	}

	// A reap that fails keeps it queued.
	short, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if err := r.Reap(short); err == nil || r.Len() != 1 || l.State() != lease.Pending {
		t.Fatalf("failed Reap = %v, %d queued, state %v", err, r.Len(), l.State())
	}
	sc.fixed.Store(true)
	if err := r.Reap(context.Background()); err != nil || r.Len() != 0 || l.State() != lease.Released {
		t.Fatalf("Reap = %v, %d queued, state %v", err, r.Len(), l.State())
	}
	if got := sc.calls.Load(); got != 4 {
		t.Errorf("cleanup called %d times, want 4", got)
	}
	if err := r.Reap(ended); err != nil {
		t.Errorf("Reap of an empty queue = %v", err)
	}
}

func TestReaperSkipsReleasedAndStopsOnCancel(t *testing.T) {
	var r lease.Reaper
	sc := &slowClose{}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	a, b := r.Owned(sc.release), r.Owned(sc.release)
	_, _ = a.Release(ended), b.Release(ended)
	if r.Len() != 2 {
		t.Fatalf("%d queued, want 2", r.Len())
	}
	if err := r.Reap(ended); !errors.Is(err, context.Canceled) || r.Len() != 2 {
		t.Errorf("Reap(ended) = %v with %d queued, want Canceled and both kept", err, r.Len())
	}
	sc.fixed.Store(true)
	_ = a.Release(context.Background())
	before := sc.calls.Load()
	if err := r.Reap(context.Background()); err != nil || r.Len() != 0 {
		t.Errorf("Reap = %v, %d queued", err, r.Len())
	}
	if sc.calls.Load()-before != 1 {
		t.Errorf("Reap ran %d cleanups, want only the pending one", sc.calls.Load()-before)
	}
}

func TestReaperRun(t *testing.T) {
	leakcheck.Check(t)
	var r lease.Reaper
	released := make(chan struct{})
	var fail atomic.Bool
	fail.Store(true)
	l := r.Owned(func(ctx context.Context) error {
		if fail.Load() {
			return errClose
		}
		close(released)
		return nil
	})
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	_ = l.Release(ended)
	fail.Store(false)

	ctx, stopRun := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx, time.Millisecond, func(err error) { t.Errorf("reported %v", err) }) }()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not reap the lease")
	}
	stopRun()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}

func TestPanickingCleanup(t *testing.T) {
	l := lease.Owned(func(context.Context) error { panic("bad close") })
	func() {
		defer func() { _ = recover() }()
		_ = l.Release(context.Background())
	}()
	if l.State() != lease.Failed {
		t.Errorf("state = %v after panic, want failed", l.State())
	}
	if s := lease.State(42).String(); s != "State(42)" {
		t.Errorf("String = %q", s)
	}
}

var sink int

func BenchmarkOwnedRelease(b *testing.B) {
	ctx := context.Background()
	release := func(context.Context) error { sink++; return nil }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := lease.Owned(release).Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

//go:noinline
func plainRelease(context.Context) error { sink++; return nil }

// BenchmarkPlainCall is the baseline: calling the cleanup directly.
func BenchmarkPlainCall(b *testing.B) {
	ctx := context.Background()
	release := plainRelease
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
