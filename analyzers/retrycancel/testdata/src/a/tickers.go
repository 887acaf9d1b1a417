package a

import (
	"context"
	"time"
)

func poll(ctx context.Context) error { return ctx.Err() }

// A goroutine that ranges over a ticker never ends: untrackedgo reports
// the goroutine, and this check stays quiet on its loop.
func startPolling(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	go func() {
		for range t.C {
			_ = poll(ctx)
		}
	}()
}

// The same loop in the function itself blocks its caller forever.
func pollForever(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for range t.C { // want `ranging over t.C ignores ctx and the loop never checks it`
		_ = poll(ctx)
	}
}
