package wait_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/internal/leakcheck"
	"github.com/cancelcheck/cancelcheck/rt/stop"
	"github.com/cancelcheck/cancelcheck/rt/wait"
)

var errLeft = errors.New("caller left")

func TestSleepFullDuration(t *testing.T) {
	start := time.Now()
	if err := wait.Sleep(context.Background(), 5*time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
	if el := time.Since(start); el < 5*time.Millisecond {
		t.Errorf("Sleep returned after %v, want at least 5ms", el)
	}
}

func TestSleepCanceled(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := stop.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, func() { cancel(errLeft) })
	start := time.Now()
	err := wait.Sleep(ctx, time.Hour)
	if !errors.Is(err, errLeft) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want the cause and context.Canceled", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("Sleep took %v after cancel", el)
	}
}

func TestSleepDeadline(t *testing.T) {
	ctx, cancel := stop.WithTimeout(context.Background(), time.Millisecond, errLeft)
	defer cancel()
	err := wait.Sleep(ctx, time.Hour)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errLeft) {
		t.Fatalf("Sleep = %v, want the deadline and its cause", err)
	}
	if got := stop.Classify(ctx, err); got != stop.TimedOut {
		t.Errorf("Classify = %v, want timed out", got)
	}
}

func TestSleepEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{-1, 0, time.Hour} {
		if err := wait.Sleep(ctx, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(ended, %v) = %v, want context.Canceled", d, err)
		}
	}
	if err := wait.Sleep(context.Background(), -time.Hour); err != nil {
		t.Errorf("Sleep(live, -1h) = %v, want nil", err)
	}
}

func TestUntil(t *testing.T) {
	if err := wait.Until(context.Background(), time.Now().Add(-time.Hour)); err != nil {
		t.Errorf("Until(past) = %v", err)
	}
	if err := wait.Until(context.Background(), time.Now().Add(2*time.Millisecond)); err != nil {
		t.Errorf("Until(soon) = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := wait.Until(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Until(far) = %v, want DeadlineExceeded", err)
	}
}

func TestRecv(t *testing.T) {
	leakcheck.Check(t)
	ch := make(chan int, 1)
	ch <- 7
	if v, ok, err := wait.Recv(context.Background(), ch); v != 7 || !ok || err != nil {
		t.Errorf("Recv = %v, %v, %v; want 7, true, nil", v, ok, err)
	}
	close(ch)
	if v, ok, err := wait.Recv(context.Background(), ch); v != 0 || ok || err != nil {
		t.Errorf("Recv(closed) = %v, %v, %v; want 0, false, nil", v, ok, err)
	}

	ctx, cancel := stop.WithCancel(context.Background())
	time.AfterFunc(time.Millisecond, func() { cancel(errLeft) })
	if _, ok, err := wait.Recv(ctx, make(chan int)); ok || !errors.Is(err, errLeft) {
		t.Errorf("Recv(canceled) = %v, %v; want false and the cause", ok, err)
	}
	// An ended context wins over a ready channel.
	ready := make(chan int, 1)
	ready <- 1
	if _, ok, err := wait.Recv(ctx, ready); ok || err == nil {
		t.Errorf("Recv(ended, ready) = %v, %v; want the context's error", ok, err)
	}
	if _, _, err := wait.Recv[int](ctx, nil); err == nil {
		t.Error("Recv(nil chan) returned no error after ctx ended")
	}
}

func TestSend(t *testing.T) {
	leakcheck.Check(t)
	ch := make(chan string, 1)
	if err := wait.Send(context.Background(), ch, "a"); err != nil || <-ch != "a" {
		t.Errorf("Send = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if err := wait.Send(ctx, make(chan string), "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Send(blocked) = %v, want DeadlineExceeded", err)
	}
	// An ended context wins over a ready channel: nothing is sent.
	if err := wait.Send(ctx, ch, "c"); err == nil || len(ch) != 0 {
		t.Errorf("Send(ended, ready) = %v with %d queued; want an error and nothing sent", err, len(ch))
	}
}

func BenchmarkSleep(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := wait.Sleep(ctx, time.Nanosecond); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTimerSelect is the hand-written equivalent of BenchmarkSleep.
func BenchmarkTimerSelect(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t := time.NewTimer(time.Nanosecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			b.Fatal(ctx.Err())
		}
	}
}

// BenchmarkSleepCanceled measures the path where the context is already
// over, the one a canceled retry loop takes.
func BenchmarkSleepCanceled(b *testing.B) {
	ctx, cancel := stop.WithCancel(context.Background())
	cancel(errLeft)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if wait.Sleep(ctx, time.Hour) == nil {
			b.Fatal("no error")
		}
	}
}
