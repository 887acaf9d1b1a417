//go:build go1.23

package timersnew

import (
	"context"
	"time"
)

// From Go 1.23 none of these leak: unreferenced timers are collected.

func poll(ctx context.Context, check func() bool) error {
	t := time.NewTicker(time.Second)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if check() {
				return nil
			}
		}
	}
}

func waitLoop(ctx context.Context, ch <-chan int) int {
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-ch:
		case <-time.After(time.Minute):
			return 1
		}
	}
}

func ticks(ctx context.Context) {
	for range time.Tick(time.Second) {
		if ctx.Err() != nil {
			return
		}
	}
}

// The cancel function is still a lease.
func still(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second) // want `the cancel function of context.WithTimeout is not called`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	cancel()
	return nil
}
