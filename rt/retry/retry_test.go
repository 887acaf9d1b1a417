package retry_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/internal/leakcheck"
	"github.com/cancelcheck/cancelcheck/rt/retry"
	"github.com/cancelcheck/cancelcheck/rt/stop"
)

var errFlaky = errors.New("flaky")

// fast is a policy whose delays are short enough for tests.
var fast = retry.Policy{Initial: 100 * time.Microsecond, Max: time.Millisecond, Jitter: -1}

func TestDoSucceedsAfterFailures(t *testing.T) {
	leakcheck.Check(t)
	var calls int
	err := retry.Do(context.Background(), fast, func(ctx context.Context) error {
		calls++
		if calls < 3 {
			return errFlaky
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Do = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestDoExhausted(t *testing.T) {
	p := fast
	p.MaxAttempts = 4
	var calls int
	err := retry.Do(context.Background(), p, func(ctx context.Context) error {
		calls++
		return fmt.Errorf("call %d: %w", calls, errFlaky)
	})
	if calls != 4 {
		t.Errorf("made %d calls, want 4", calls)
	}
	var re *retry.Error
	if !errors.As(err, &re) || re.Attempts != 4 {
		t.Fatalf("Do = %#v, want *retry.Error after 4 attempts", err)
	}
	if !errors.Is(err, errFlaky) || !errors.Is(err, retry.ErrExhausted) {
		t.Errorf("Do = %v, want it to match errFlaky and ErrExhausted", err)
	}
	if want := "retry: 4 attempts: call 4: flaky (retry budget exhausted)"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
}

func TestDoZeroPolicyMakesDefaultAttempts(t *testing.T) {
	// Make the delays tiny without touching MaxAttempts.
	p := retry.Policy{Initial: time.Microsecond, Max: time.Microsecond}
	var calls int
	_ = retry.Do(context.Background(), p, func(context.Context) error { calls++; return errFlaky })
	if calls != retry.DefaultMaxAttempts {
		t.Errorf("made %d calls, want %d", calls, retry.DefaultMaxAttempts)
	}
}

func TestDoPermanent(t *testing.T) {
	var calls int
	errBad := errors.New("bad request")
	err := retry.Do(context.Background(), fast, func(context.Context) error {
		calls++
		return fmt.Errorf("wrapped: %w", retry.Permanent(errBad))
	})
	if calls != 1 || err != errBad {
		t.Errorf("Do = %v after %d calls, want errBad after 1", err, calls)
	}
	if retry.Permanent(nil) != nil {
		t.Error("Permanent(nil) != nil")
	}
	if !retry.IsPermanent(retry.Permanent(errBad)) || retry.IsPermanent(errBad) {
		t.Error("IsPermanent is wrong")
	}
}

func TestDoParentCancelNotRetried(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := stop.WithCancel(context.Background())
	var calls int
	err := retry.Do(ctx, retry.Policy{MaxAttempts: 100, Initial: time.Hour}, func(ctx context.Context) error {
		calls++
		stop.Shutdown(cancel) // the caller goes away during the attempt
		<-ctx.Done()
		return ctx.Err()
	})
	if calls != 1 {
		t.Errorf("made %d calls after the caller's cancel, want 1", calls)
	}
	if !errors.Is(err, stop.ErrShutdown) || !errors.Is(err, context.Canceled) {
		t.Errorf("Do = %v, want the caller's cause and context.Canceled", err)
	}
	if got := stop.Classify(ctx, err); got != stop.ShutDown {
		t.Errorf("Classify = %v, want shut down", got)
	}
}

func TestDoCancelDuringDelay(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := stop.WithCancel(context.Background())
	var calls int
	start := time.Now()
	err := retry.Do(ctx, retry.Policy{MaxAttempts: 100, Initial: time.Hour}, func(ctx context.Context) error {
		calls++
		time.AfterFunc(time.Millisecond, func() { cancel(stop.ErrCallerCanceled) })
		return errFlaky
	})
	if calls != 1 || time.Since(start) > 10*time.Second {
		t.Errorf("made %d calls in %v", calls, time.Since(start))
	}
	if !errors.Is(err, errFlaky) || !errors.Is(err, stop.ErrCallerCanceled) {
		t.Errorf("Do = %v, want the last error and the cause", err)
	}
}

func TestDoEndedContextMakesNoAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := retry.Do(ctx, fast, func(context.Context) error {
		t.Fatal("attempt made after ctx ended")
		return nil
	})
	var re *retry.Error
	if !errors.As(err, &re) || re.Attempts != 0 || re.Last != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Do = %#v, want an Error with no attempts matching Canceled", err)
	}
}

func TestDoPerAttemptTimeoutIsRetried(t *testing.T) {
	leakcheck.Check(t)
	p := fast
	p.PerAttempt = time.Millisecond
	var calls int
	err := retry.Do(context.Background(), p, func(ctx context.Context) error {
		calls++
		if calls < 3 {
			<-ctx.Done() // this attempt hangs until its own timeout
			return ctx.Err()
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Do = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestDoPerAttemptTimeoutMarked(t *testing.T) {
	p := fast
	p.PerAttempt = time.Millisecond
	p.MaxAttempts = 2
	err := retry.Do(context.Background(), p, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, retry.ErrAttemptTimeout) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, retry.ErrExhausted) {
		t.Errorf("Do = %v, want ErrAttemptTimeout, DeadlineExceeded and ErrExhausted", err)
	}
}

func TestDoParentDeadlineNotRetried(t *testing.T) {
	leakcheck.Check(t)
	errSLO := errors.New("request budget spent")
	ctx, cancel := stop.WithTimeout(context.Background(), 20*time.Millisecond, errSLO)
	defer cancel()
	p := fast
	p.MaxAttempts = 1000
	p.PerAttempt = time.Hour // the parent's deadline is sooner and wins
	var calls atomic.Int32
	err := retry.Do(ctx, p, func(ctx context.Context) error {
		calls.Add(1)
		<-ctx.Done()
		return ctx.Err()
	})
	if calls.Load() != 1 {
		t.Errorf("made %d calls, want 1", calls.Load())
	}
	if !errors.Is(err, errSLO) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, retry.ErrAttemptTimeout) {
		t.Errorf("Do = %v, want the parent's deadline and cause, not an attempt timeout", err)
	}
	if got := stop.Classify(ctx, err); got != stop.TimedOut {
		t.Errorf("Classify = %v, want timed out", got)
	}
}

func TestDoMaxElapsed(t *testing.T) {
	p := retry.Policy{MaxAttempts: 1000, Initial: 10 * time.Millisecond, Multiplier: 1, Jitter: -1, MaxElapsed: 25 * time.Millisecond}
	var calls int
	err := retry.Do(context.Background(), p, func(context.Context) error { calls++; return errFlaky })
	if !errors.Is(err, retry.ErrExhausted) {
		t.Fatalf("Do = %v, want ErrExhausted", err)
	}
	// Delays of 10ms in a 25ms budget allow at most 3 attempts.
	if calls < 1 || calls > 3 {
		t.Errorf("made %d calls, want 1 to 3", calls)
	}
}

func TestDoMaxElapsedWithHugeDelays(t *testing.T) {
	p := retry.Policy{MaxAttempts: 3, Initial: math.MaxInt64, Max: math.MaxInt64, Jitter: -1, MaxElapsed: time.Second}
	done := make(chan error, 1)
	go func() { done <- retry.Do(context.Background(), p, func(context.Context) error { return errFlaky }) }()
	select {
	case err := <-done:
		if !errors.Is(err, retry.ErrExhausted) {
			t.Errorf("Do = %v, want ErrExhausted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Do began a delay longer than MaxElapsed")
	}
}

func TestDoValue(t *testing.T) {
	var calls int
	v, err := retry.DoValue(context.Background(), fast, func(context.Context) (string, error) {
		calls++
		if calls == 1 {
			return "partial", errFlaky
		}
		return "ok", nil
	})
	if v != "ok" || err != nil {
		t.Errorf("DoValue = %q, %v", v, err)
	}
	p := fast
	p.MaxAttempts = 1
	v, err = retry.DoValue(context.Background(), p, func(context.Context) (string, error) { return "partial", errFlaky })
	if v != "" || !errors.Is(err, errFlaky) {
		t.Errorf("DoValue = %q, %v; want the zero value and the error", v, err)
	}
}

func TestDoAttemptContextCanceledAfterAttempt(t *testing.T) {
	var kept context.Context
	_ = retry.Do(context.Background(), fast, func(ctx context.Context) error { kept = ctx; return nil })
	if kept.Err() == nil {
		t.Error("the attempt's context is still live after Do returned")
	}
}

// checkDelay asserts the schedule's invariants for one policy and attempt.
func checkDelay(t *testing.T, p retry.Policy, attempt int, r float64) {
	t.Helper()
	_, max := effective(p)
	b := p.Backoff(attempt)
	if b <= 0 || b > max {
		t.Fatalf("%+v: Backoff(%d) = %v, want in (0, %v]", p, attempt, b, max)
	}
	if attempt > math.MinInt && p.Backoff(attempt-1) > b {
		t.Fatalf("%+v: Backoff(%d) = %v < Backoff(%d) = %v", p, attempt, b, attempt-1, p.Backoff(attempt-1))
	}
	d := p.Delay(attempt, func() float64 { return r })
	if d < 0 || d > b {
		t.Fatalf("%+v: Delay(%d, %v) = %v, want in [0, %v]", p, attempt, r, d, b)
	}
	if p.Delay(attempt, func() float64 { return 0 }) != b {
		t.Fatalf("%+v: Delay with no randomness differs from Backoff", p)
	}
}

// effective returns the documented effective Initial and Max of p.
func effective(p retry.Policy) (initial, max time.Duration) {
	max = p.Max
	if max <= 0 {
		max = retry.DefaultMax
	}
	initial = p.Initial
	if initial <= 0 {
		initial = retry.DefaultInitial
	}
	return min(initial, max), max
}

func TestDelaySchedule(t *testing.T) {
	p := retry.Policy{Initial: time.Second, Max: 10 * time.Second, Jitter: -1}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		if got := p.Delay(i+1, nil); got != w {
			t.Errorf("Delay(%d) = %v, want %v", i+1, got, w)
		}
	}
	var zero retry.Policy
	if got := zero.Backoff(1); got != retry.DefaultInitial {
		t.Errorf("zero Policy Backoff(1) = %v, want %v", got, retry.DefaultInitial)
	}
	jittered := retry.Policy{Initial: time.Second, Jitter: 0.5}
	if got := jittered.Delay(1, func() float64 { return 0.5 }); got != 750*time.Millisecond {
		t.Errorf("Delay with jitter 0.5 and r 0.5 = %v, want 750ms", got)
	}
	for _, p := range []retry.Policy{
		{},
		{Initial: -1, Max: -1, Multiplier: math.NaN(), Jitter: math.NaN()},
		{Initial: math.MaxInt64, Max: math.MaxInt64, Multiplier: math.Inf(1), Jitter: math.Inf(1)},
		{Initial: 1, Max: math.MaxInt64, Multiplier: 1e308, Jitter: 1},
		{Initial: time.Hour, Max: time.Second, Multiplier: 0.5, Jitter: -5},
		{Initial: 3, Max: 7, Multiplier: 1.0000001},
	} {
		for _, attempt := range []int{math.MinInt, -1, 0, 1, 2, 3, 30, 62, 63, 64, 1000, math.MaxInt} {
			for _, r := range []float64{0, 0.5, 0.999, 1, 2, -1, math.NaN(), math.Inf(1)} {
				checkDelay(t, p, attempt, r)
			}
		}
	}
}

func FuzzDelay(f *testing.F) {
	f.Add(int64(0), int64(0), 0.0, 0.0, 1, 0.5)
	f.Add(int64(time.Millisecond), int64(time.Second), 2.0, 0.2, 10, 0.99)
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), math.Inf(1), 1.0, math.MaxInt, 1.0)
	f.Add(int64(-5), int64(math.MinInt64), math.NaN(), math.NaN(), math.MinInt, math.NaN())
	f.Fuzz(func(t *testing.T, initial, max int64, mult, jitter float64, attempt int, r float64) {
		p := retry.Policy{Initial: time.Duration(initial), Max: time.Duration(max), Multiplier: mult, Jitter: jitter}
		checkDelay(t, p, attempt, r)
	})
}

func BenchmarkDoFirstTry(b *testing.B) {
	ctx := context.Background()
	f := func(context.Context) error { return nil }
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := retry.Do(ctx, retry.Policy{}, f); err != nil {
			b.Fatal(err)
		}
	}
}
