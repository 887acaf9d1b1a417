//go:build go1.22

package timersold

import (
	"context"
	"time"
)

func poll(ctx context.Context, check func() bool) error {
	t := time.NewTicker(time.Second) // want `the ticker t from time.NewTicker is not stopped on the path through the return in case <-ctx.Done\(\)`
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if check() {
				t.Stop()
				return nil
			}
		}
	}
}

func waitLoop(ctx context.Context, ch <-chan int) int {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n
		case v := <-ch:
			n += v
		case <-time.After(time.Minute): // want `the timer of time.After in this loop is not stopped when another case wins`
			return n
		}
	}
}

func ticks(ctx context.Context) {
	for range time.Tick(time.Second) { // want `the ticker of time.Tick can never be stopped`
		if ctx.Err() != nil {
			return
		}
	}
}

// ---- near misses ----

func stopped(ctx context.Context) error {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func once(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Second):
		return nil
	}
}

// ---- a fired timer holds nothing ----

func ping(ctx context.Context) error { return ctx.Err() }

// Near-miss: the timer is stopped when the context wins and has fired when
// its case is taken; the next round's timer is a new one.
func pollStopped(ctx context.Context) error {
	for {
		if err := ping(ctx); err == nil {
			return nil
		}
		timer := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// Near-miss: a bare receive from C completes when the timer fires.
func sleepTimer(d time.Duration) {
	t := time.NewTimer(d)
	<-t.C
}

// The context's case leaves the timer running: it is not stopped there.
func pollLeaky(ctx context.Context) error {
	for {
		if err := ping(ctx); err == nil {
			return nil
		}
		timer := time.NewTimer(time.Second) // want `the timer timer from time.NewTimer is not stopped on the path through the return in case <-ctx.Done\(\), so the timer stays in the runtime.s heap`
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// A ticker keeps ticking after a receive: still reported.
func tickOnce(d time.Duration) {
	t := time.NewTicker(d) // want `the ticker t from time.NewTicker is not stopped`
	<-t.C
}
