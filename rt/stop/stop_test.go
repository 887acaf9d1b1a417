package stop_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

var errBoom = errors.New("boom")

// nilCtx is a nil context, which the package documents as one that never ends.
var nilCtx context.Context

func TestReasonString(t *testing.T) {
	for r, want := range map[stop.Reason]string{
		stop.Finished: "finished", stop.Canceled: "canceled", stop.TimedOut: "timed out",
		stop.ShutDown: "shut down", stop.Failed: "failed", stop.Reason(42): "Reason(42)", stop.Reason(-1): "Reason(-1)",
	} {
		if got := r.String(); got != want {
			t.Errorf("Reason(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

// ended returns contexts that ended in every way the context package allows.
func ended(t *testing.T) map[string]struct {
	ctx  context.Context
	want stop.Reason
} {
	t.Helper()
	bg := context.Background()

	canceled, c1 := context.WithCancel(bg)
	c1()
	canceledCause, c2 := stop.WithCancel(bg)
	c2(errBoom)
	canceledWithDeadlineCause, c3 := stop.WithCancel(bg)
	c3(context.DeadlineExceeded) // a cancel whose cause looks like a timeout
	shutdown, c4 := stop.WithCancel(bg)
	stop.Shutdown(c4)
	timedOut, c5 := context.WithTimeout(bg, -time.Second)
	timedOutCause, c6 := stop.WithTimeout(bg, -time.Second, errBoom)
	timedOutCanceledCause, c7 := stop.WithTimeout(bg, -time.Second, context.Canceled) // a timeout whose cause looks like a cancel
	timedOutShutdown, c8 := stop.WithDeadline(bg, time.Now().Add(-time.Second), stop.ErrShutdown)
	childOfCanceled, c9 := context.WithTimeout(canceledCause, time.Hour)
	t.Cleanup(func() { c5(); c6(); c7(); c8(); c9() })

	type tc = struct {
		ctx  context.Context
		want stop.Reason
	}
	return map[string]tc{
		"canceled":                     {canceled, stop.Canceled},
		"canceled with cause":          {canceledCause, stop.Canceled},
		"canceled with deadline cause": {canceledWithDeadlineCause, stop.Canceled},
		"shutdown":                     {shutdown, stop.ShutDown},
		"timed out":                    {timedOut, stop.TimedOut},
		"timed out with cause":         {timedOutCause, stop.TimedOut},
		"timed out with cancel cause":  {timedOutCanceledCause, stop.TimedOut},
		"timed out with shutdown":      {timedOutShutdown, stop.ShutDown},
		"child of canceled":            {childOfCanceled, stop.Canceled},
	}
}

func TestClassifyContextEnds(t *testing.T) {
	for name, tc := range ended(t) {
		t.Run(name, func(t *testing.T) {
			ctx := tc.ctx
			for _, err := range []error{
				ctx.Err(),
				context.Cause(ctx),
				stop.Err(ctx),
				fmt.Errorf("op: %w", ctx.Err()),
				stop.Wrap(ctx, errBoom),
			} {
				if got := stop.Classify(ctx, err); got != tc.want {
					t.Errorf("Classify(ctx, %v) = %v, want %v", err, got, tc.want)
				}
				// The errors from Err and Wrap carry their mechanism with
				// them, so they classify the same under an unrelated context.
			}
			for _, err := range []error{stop.Err(ctx), stop.Wrap(ctx, errBoom)} {
				if got := stop.Classify(context.Background(), err); got != tc.want {
					t.Errorf("Classify(Background, %v) = %v, want %v", err, got, tc.want)
				}
				if got := stop.Classify(nilCtx, err); got != tc.want {
					t.Errorf("Classify(nil, %v) = %v, want %v", err, got, tc.want)
				}
			}
		})
	}
}

func TestClassifyWithoutContextEnd(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancel(live)
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want stop.Reason
	}{
		{"nil error", live, nil, stop.Finished},
		{"nil error, ended ctx", canceled, nil, stop.Finished},
		{"own error", live, errBoom, stop.Failed},
		{"own error, ended ctx", canceled, errBoom, stop.Failed},
		{"inner timeout", live, fmt.Errorf("call: %w", context.DeadlineExceeded), stop.TimedOut},
		{"inner cancel", live, context.Canceled, stop.Canceled},
		{"shutdown error", live, stop.ErrShutdown, stop.ShutDown},
	} {
		if got := stop.Classify(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: Classify = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestErr(t *testing.T) {
	if err := stop.Err(context.Background()); err != nil {
		t.Fatalf("Err(live) = %v, want nil", err)
	}
	if err := stop.Err(nilCtx); err != nil {
		t.Fatalf("Err(nil) = %v, want nil", err)
	}
	plain, cancel := context.WithCancel(context.Background())
	cancel()
	if err := stop.Err(plain); err != context.Canceled {
		t.Errorf("Err(plain canceled) = %#v, want context.Canceled itself", err)
	}
	for name, tc := range ended(t) {
		err := stop.Err(tc.ctx)
		if !errors.Is(err, tc.ctx.Err()) || !errors.Is(err, context.Cause(tc.ctx)) {
			t.Errorf("%s: Err = %v does not match both %v and %v", name, err, tc.ctx.Err(), context.Cause(tc.ctx))
		}
	}
	ctx, c := stop.WithTimeout(context.Background(), -1, errBoom)
	defer c()
	if got, want := stop.Err(ctx).Error(), "context deadline exceeded: boom"; got != want {
		t.Errorf("Err message = %q, want %q", got, want)
	}
}

func TestWrap(t *testing.T) {
	if err := stop.Wrap(context.Background(), nil); err != nil {
		t.Errorf("Wrap(live, nil) = %v", err)
	}
	if err := stop.Wrap(context.Background(), errBoom); err != errBoom {
		t.Errorf("Wrap(live, err) = %v, want err unchanged", err)
	}
	ctx, cancel := stop.WithCancel(context.Background())
	stop.Shutdown(cancel)
	if err := stop.Wrap(ctx, nil); err != nil {
		t.Errorf("Wrap(ended, nil) = %v, want nil", err)
	}
	err := stop.Wrap(ctx, errBoom)
	for _, target := range []error{errBoom, stop.ErrShutdown, context.Canceled} {
		if !errors.Is(err, target) {
			t.Errorf("Wrap(ended, boom) = %v does not match %v", err, target)
		}
	}
	if err.Error() != "boom" {
		t.Errorf("Wrap message = %q, want the original message", err.Error())
	}
	if e := stop.Err(ctx); stop.Wrap(ctx, e) != e {
		t.Errorf("Wrap(ctx, Err(ctx)) should return its argument unchanged")
	}
}

func TestCause(t *testing.T) {
	if stop.Cause(nilCtx) != nil {
		t.Error("Cause(nil) != nil")
	}
	ctx, cancel := stop.WithCancel(context.Background())
	if stop.Cause(ctx) != nil {
		t.Error("Cause(live) != nil")
	}
	cancel(stop.ErrCallerCanceled)
	cancel(errBoom) // only the first cause counts
	if got := stop.Cause(ctx); got != stop.ErrCallerCanceled {
		t.Errorf("Cause = %v, want ErrCallerCanceled", got)
	}
}
