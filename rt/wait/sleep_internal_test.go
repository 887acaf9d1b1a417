package wait

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeTimer never fires on its own and records whether it was stopped.
type fakeTimer struct {
	c       chan time.Time
	d       time.Duration
	stopped bool
}

func (f *fakeTimer) C() <-chan time.Time { return f.c }
func (f *fakeTimer) Stop() bool {
	was := !f.stopped
	f.stopped = true
	return was
}

func TestSleepStopsTimerOnCancel(t *testing.T) {
	var ft *fakeTimer
	created := make(chan struct{})
	newTimer := func(d time.Duration) timer {
		ft = &fakeTimer{c: make(chan time.Time, 1), d: d}
		close(created)
		return ft
	}
	cause := errors.New("caller left")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error)
	go func() { done <- sleep(ctx, time.Hour, newTimer) }()
	<-created
	cancel(cause)
	err := <-done
	if !errors.Is(err, cause) || !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep = %v, want the cause and context.Canceled", err)
	}
	if ft == nil || !ft.stopped {
		t.Fatal("sleep returned without stopping its timer")
	}
	if ft.d != time.Hour {
		t.Errorf("timer duration = %v, want 1h", ft.d)
	}
}

func TestSleepMakesNoTimerWhenNotNeeded(t *testing.T) {
	newTimer := func(time.Duration) timer {
		t.Fatal("sleep made a timer it does not need")
		return nil
	}
	if err := sleep(context.Background(), 0, newTimer); err != nil {
		t.Errorf("sleep(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour, newTimer); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep(ended ctx) = %v", err)
	}
}

func TestSleepFires(t *testing.T) {
	var ft *fakeTimer
	newTimer := func(d time.Duration) timer {
		ft = &fakeTimer{c: make(chan time.Time, 1), d: d}
		ft.c <- time.Now()
		return ft
	}
	if err := sleep(context.Background(), time.Hour, newTimer); err != nil {
		t.Fatalf("sleep = %v, want nil", err)
	}
	if ft.stopped {
		t.Error("sleep stopped a timer that had fired")
	}
}
