package cancels

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"time"
)

func work(ctx context.Context) error { return nil }

// Early return on cancellation before the cancel is called.
func fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second) // want `the cancel function of context.WithTimeout is not called on the path through the return when ctx.Err\(\) != nil, so the timer and the child context live until the deadline passes or the parent context ends`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	err := work(ctx)
	cancel()
	return err
}

// Select on ctx.Done returns without cancel.
func waitFor(ctx context.Context, ch <-chan int) int {
	ctx, cancel := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is not called on the path through the return in case <-ctx.Done\(\), so the child context`
	select {
	case <-ctx.Done():
		return 0
	case v := <-ch:
		cancel()
		return v
	}
}

// Discarded cancel function.
func discard(ctx context.Context) error {
	ctx, _ = context.WithDeadline(ctx, time.Now()) // want `the cancel function of context.WithDeadline is discarded, so it can never be called`
	return work(ctx)
}

// Cause variant, several returns.
func cause(ctx context.Context, n int) error {
	ctx, cancel := context.WithCancelCause(ctx) // want `the cancel function of context.WithCancelCause is not called on the path through the return when n < 0 and one other return`
	if n < 0 {
		return errors.New("negative")
	}
	if n == 0 {
		return nil
	}
	cancel(nil)
	return work(ctx)
}

// ---- near misses ----

func deferred(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return work(ctx)
}

func deferredClosure(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
	}()
	return work(ctx)
}

// Returned to the caller: handed off.
func derive(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	return ctx, cancel
}

type server struct {
	cancel context.CancelFunc
}

func (s *server) Stop() { s.cancel() }

// Stored in a field of an owner that releases it.
func (s *server) start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go func() { _ = work(ctx) }()
}

// Given to a goroutine that calls it.
func background(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		_ = work(ctx)
	}()
}

// Sent on a channel.
func sendCancel(ctx context.Context, out chan<- context.CancelFunc) {
	_, cancel := context.WithCancel(ctx)
	out <- cancel
}

// Appended to a slice that is released later.
func collect(ctx context.Context, all []context.CancelFunc) []context.CancelFunc {
	_, cancel := context.WithCancel(ctx)
	return append(all, cancel)
}

func callAll(fs []context.CancelFunc) {
	for _, f := range fs {
		f()
	}
}

// Passed to a function that calls it.
func handOff(ctx context.Context) {
	_, cancel := context.WithCancel(ctx)
	callLater(cancel)
}

func callLater(f context.CancelFunc) { defer f() }

// Aliased, then called.
func alias(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	stop := cancel
	defer stop()
	return work(ctx)
}

// Panics do not leak (the program is going down).
func panicking(ctx context.Context, n int) error {
	ctx, cancel := context.WithCancel(ctx)
	if n < 0 {
		panic("negative")
	}
	defer cancel()
	return work(ctx)
}

// Context.AfterFunc-style registration through a method value.
func methodValue(ctx context.Context, cleanups *[]func()) {
	_, cancel := context.WithCancel(ctx)
	*cleanups = append(*cleanups, cancel)
}

// Cancel called on every path explicitly.
func explicit(ctx context.Context, fast bool) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	if fast {
		cancel()
		return nil
	}
	err := work(ctx)
	cancel()
	return err
}

func notify(ctx context.Context, ready func() bool) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt) // want `the cancel function of signal.NotifyContext is not called on the path through the return when !ready\(\)`
	if !ready() {
		return errors.New("not ready")
	}
	defer stop()
	return work(ctx)
}

type reqOpts struct {
	ctx  context.Context
	wait time.Duration
}

// Near-miss: the second timeout is added only when the context has no
// deadline, which the first timeout's context always has.
func defaultTimeout(o reqOpts, def time.Duration) (reqOpts, context.CancelFunc) {
	var cancel context.CancelFunc
	if o.ctx == nil && o.wait > 0 {
		o.ctx, cancel = context.WithTimeout(context.Background(), o.wait)
	}
	if o.ctx != nil {
		if _, hasDeadline := o.ctx.Deadline(); !hasDeadline {
			o.ctx, cancel = context.WithTimeout(o.ctx, def)
		}
	}
	return o, cancel
}

// The second timeout replaces the first one unconditionally.
func doubleTimeout(o reqOpts, def time.Duration) (reqOpts, context.CancelFunc) {
	var cancel context.CancelFunc
	if o.ctx == nil && o.wait > 0 {
		o.ctx, cancel = context.WithTimeout(context.Background(), o.wait) // want `the cancel function of context.WithTimeout is not called before cancel is overwritten`
	}
	if o.ctx != nil {
		o.ctx, cancel = context.WithTimeout(o.ctx, def)
	}
	return o, cancel
}

type handlerError struct{ msg string }

func (e *handlerError) Error() string { return e.msg }

// taskContext returns a nil cancel function with a non-nil *handlerError.
func taskContext(timeout string) (context.Context, context.CancelFunc, *handlerError) {
	d, err := time.ParseDuration(timeout)
	if err != nil {
		return nil, nil, &handlerError{"bad timeout"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	return ctx, cancel, nil
}

// Near-miss: the acquisition's error is a *handlerError; on that path there
// is nothing to cancel.
func executeTask(timeout string) *handlerError {
	ctx, cancel, herr := taskContext(timeout)
	if herr != nil {
		return herr
	}
	defer cancel()
	return work2(ctx)
}

func work2(ctx context.Context) *handlerError { return nil }
