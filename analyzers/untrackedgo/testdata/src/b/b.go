// Package b uses package helpers: its facts cross the package boundary.
package b

import (
	"context"
	"sync"
	"time"

	"helpers"
)

func spawnsViaHelper(ctx context.Context) {
	helpers.Go(func() { // want `goroutine uses the context ctx of spawnsViaHelper`
		helpers.Once(ctx)
	})
}

func joinedViaParam(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go helpers.Worker(&wg, ctx)
	wg.Wait()
}

func notWaited(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(1)
	go helpers.Worker(&wg, ctx) // want `goroutine uses the context ctx of notWaited`
	if err := helpers.Once(ctx); err != nil {
		return err
	}
	wg.Wait()
	return nil
}

func joinedViaChannel(ctx context.Context) int {
	out := make(chan int, 1)
	go helpers.Produce(ctx, out)
	n := 0
	for v := range out {
		n += v
	}
	return n
}

func boundLoop(ctx context.Context) {
	go helpers.Loop(ctx, time.Second)
}
