package afterfunc

import (
	"context"
	"time"
)

type budget struct{ limit time.Duration }

// run limits fn with a timer that cancels: fn sees context.Canceled when
// the limit runs out.
func (b *budget) run(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := time.AfterFunc(b.limit, cancel) // want `the time limit on ctx is a timer that calls cancel: when it fires the work ends with context.Canceled, not context.DeadlineExceeded`
	defer timer.Stop()
	return fn(ctx)
}

// runLit is the same with a literal around the cancel.
func runLit(parent context.Context, d time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(parent)
	time.AfterFunc(d, func() { cancel() }) // want `the time limit on ctx is a timer that calls cancel`
	defer cancel()
	return fn(ctx)
}

// runTimeout uses a real deadline.
func (b *budget) runTimeout(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, b.limit)
	defer cancel()
	return fn(ctx)
}

// idle moves its limit on every message: WithTimeout cannot.
func idle(ctx context.Context, d time.Duration, msgs <-chan string, handle func(context.Context, string)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := time.AfterFunc(d, cancel)
	defer t.Stop()
	for m := range msgs {
		t.Reset(d)
		handle(ctx, m)
	}
}

// recorded notes that the limit fired before it cancels.
func recorded(ctx context.Context, d time.Duration, fn func(context.Context) error) (timedOut bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fired := make(chan struct{})
	t := time.AfterFunc(d, func() {
		close(fired)
		cancel()
	})
	defer t.Stop()
	err = fn(ctx)
	select {
	case <-fired:
		return true, err
	default:
		return false, err
	}
}

// cause cancels with a cause the caller can read.
func cause(ctx context.Context, d time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	t := time.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	defer t.Stop()
	return fn(ctx)
}
