// Package helpers spawns and joins goroutines for package b.
package helpers

import (
	"context"
	"sync"
	"time"
)

// Go runs f in a goroutine nobody waits for.
func Go(f func()) { // want Go:"spawns\\(0\\)"
	go f()
}

// Worker signals wg when done: joins via parameter 0.
func Worker(wg *sync.WaitGroup, ctx context.Context) { // want Worker:"joinsParam\\(0\\)"
	defer wg.Done()
	_ = ctx
}

// Produce closes out when done: joins via parameter 1.
func Produce(ctx context.Context, out chan<- int) { // want Produce:"joinsParam\\(1\\)"
	defer close(out)
	out <- 1
}

// Loop runs until ctx is done.
func Loop(ctx context.Context, tick time.Duration) { // want Loop:"bound"
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Once does one piece of work with ctx.
func Once(ctx context.Context) error { return ctx.Err() }
