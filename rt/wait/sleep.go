package wait

import (
	"context"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

// Sleep pauses for d or until ctx ends, whichever comes first.
//
// It returns nil after the full duration, and [stop.Err](ctx) at once if
// ctx ends first or has already ended. A zero or negative d returns nil
// immediately unless ctx has ended. The timer Sleep uses is stopped
// before it returns.
func Sleep(ctx context.Context, d time.Duration) error {
	return sleep(ctx, d, newRealTimer)
}

// Until pauses until the time t or until ctx ends, as [Sleep] does for
// the duration [time.Until](t), computed once at the call.
func Until(ctx context.Context, t time.Time) error {
	return sleep(ctx, time.Until(t), newRealTimer)
}

// timer is the part of [time.Timer] that sleep uses, so tests can check
// that the timer is stopped.
type timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

func newRealTimer(d time.Duration) timer { return realTimer{time.NewTimer(d)} }

func sleep(ctx context.Context, d time.Duration, newTimer func(time.Duration) timer) error {
	if err := stop.Err(ctx); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := newTimer(d)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return stop.Err(ctx)
	}
}
