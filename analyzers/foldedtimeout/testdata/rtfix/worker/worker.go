// Package worker already uses the runtime, so fixes offer stop.Wrap too.
package worker

import (
	"context"
	"errors"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

var ErrTimeout = errors.New("timed out")

func wait(ctx context.Context, ch <-chan int) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ErrTimeout // want `reports ctx's end as a timeout`
	case v := <-ch:
		return v, nil
	}
}

func check(ctx context.Context) error { return stop.Err(ctx) }
