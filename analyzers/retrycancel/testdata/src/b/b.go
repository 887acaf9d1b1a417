package b

import (
	"context"
	"time"

	"backoffutil"
	"helpers"
)

func ping(ctx context.Context) error { return nil }

// Clean: the helper from another package checks ctx (fact).
func WaitReady(ctx context.Context) {
	for !helpers.Done(ctx) {
		if err := ping(ctx); err == nil {
			return
		}
	}
}

// Clean: an interruptible sleep helper that says when ctx ended.
func Reconnect(ctx context.Context) {
	for {
		if err := ping(ctx); err == nil {
			return
		}
		if !helpers.SleepOrDone(ctx, time.Second) {
			return
		}
	}
}

// Clean through a helper that checks through another helper.
func Loop(ctx context.Context) {
	for attempt := 0; attempt < 10; attempt++ {
		if helpers.Stopped(ctx) {
			return
		}
		_ = ping(ctx)
	}
}

// Reported: helpers.Sleep has no fact, it never looks at ctx.
func Poll(ctx context.Context) {
	for { // want `this retry loop in Poll calls ping again after it fails without checking ctx`
		if err := ping(ctx); err == nil {
			return
		}
		helpers.Sleep(ctx, time.Second)
	}
}

// A backoff helper from another package that sleeps without ctx.
func Dial(ctx context.Context) error {
	for attempt := 0; attempt < 5; attempt++ {
		if err := ping(ctx); err == nil {
			return nil
		}
		helpers.Backoff(attempt) // want `helpers.Backoff, which calls time.Sleep, ignores ctx`
	}
	return nil
}

// No fact: other packages cannot call pause.
func pause() { time.Sleep(time.Second) }

// A local sleeper.
func Retry(ctx context.Context) {
	for {
		if err := ping(ctx); err == nil {
			return
		}
		pause() // want `pause, which calls time.Sleep, ignores ctx and the loop never checks it`
	}
}

// A sleep helper from a package without context.
func Publish(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = ping(ctx); err == nil {
			return nil
		}
		backoffutil.Wait(attempt) // want `backoffutil.Wait, which calls time.Sleep, ignores ctx`
	}
	return err
}
