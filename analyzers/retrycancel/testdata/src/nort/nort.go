// Package nort does not depend on the runtime module: no fix may import it.
package nort

import (
	"context"
	"time"
)

func ping(ctx context.Context) error { return ctx.Err() }

func wait(ctx context.Context) error {
	for {
		if err := ping(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Second) // want `time.Sleep ignores ctx`
	}
}
