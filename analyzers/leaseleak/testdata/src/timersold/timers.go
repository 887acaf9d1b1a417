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
