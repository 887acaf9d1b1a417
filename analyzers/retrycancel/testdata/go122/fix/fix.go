// Package fix is in a Go 1.22 module, where a time.After timer stays in the
// runtime's heap until it fires: the sleep fix uses a timer it stops.
package fix

import (
	"context"
	"time"
)

func ping(ctx context.Context) error { return ctx.Err() }

func Poll(ctx context.Context) error {
	for {
		if err := ping(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second) // want `time.Sleep ignores ctx`
	}
}

func PollTimerTaken(ctx context.Context) error {
	timer := 0
	_ = timer
	for {
		if err := ping(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second) // want `time.Sleep ignores ctx`
	}
}
