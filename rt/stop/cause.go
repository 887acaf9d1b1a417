package stop

import (
	"context"
	"errors"
	"time"
)

// ErrShutdown is the cause recorded when work is canceled because the
// process or component that owns it is shutting down. [Classify] reports
// it as [ShutDown].
var ErrShutdown = errors.New("shut down")

// ErrCallerCanceled is the cause recorded when the caller that asked for
// the work no longer wants its result, for example because an HTTP client
// went away. [Classify] reports it as [Canceled].
var ErrCallerCanceled = errors.New("caller canceled")

// WithCancel is [context.WithCancelCause]: the returned function cancels
// ctx and records cause, which [context.Cause] and [Err] report. A nil
// cause records [context.Canceled]. Only the first call has an effect.
func WithCancel(parent context.Context) (ctx context.Context, cancel func(cause error)) {
	return context.WithCancelCause(parent)
}

// WithTimeout is [context.WithTimeoutCause]: when the timeout d elapses,
// ctx.Err() reports [context.DeadlineExceeded] and [context.Cause] reports
// cause. A nil cause records [context.DeadlineExceeded]. Calling the
// returned cancel function releases the timer; it records
// [context.Canceled] as the cause if ctx had not yet ended.
func WithTimeout(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	return WithDeadline(parent, time.Now().Add(d), cause)
}

// WithDeadline is [context.WithDeadlineCause]; see [WithTimeout].
func WithDeadline(parent context.Context, t time.Time, cause error) (context.Context, context.CancelFunc) {
	if cause == nil {
		return context.WithDeadline(parent, t)
	}
	return context.WithDeadlineCause(parent, t, cause)
}

// Shutdown cancels through cancel with [ErrShutdown] as the cause. It is
// shorthand for cancel(ErrShutdown) that reads well at shutdown sites.
func Shutdown(cancel func(cause error)) {
	cancel(ErrShutdown)
}

// Cause returns why ctx ended, or nil if it has not. It is
// [context.Cause], except that a nil ctx has no cause.
func Cause(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return context.Cause(ctx)
}
