// Package worker already uses the runtime, so fixes offer stop.Err too.
package worker

import (
	"context"
	"log"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

func put(ctx context.Context, k string) error { return stop.Err(ctx) }

func drain(ctx context.Context, ch <-chan int) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, nil // want `drain returns a nil error when ctx is done`
		case <-ch:
			n++
		}
	}
}

func putAll(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := put(ctx, k); err != nil { // want `only logged`
			log.Print(err)
		}
	}
	return nil
}
