package app

import (
	"context"
	"sync"

	"example.com/xf/dep"
)

func Leak(ctx context.Context) error {
	ctx, cancel := dep.Scoped(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	cancel()
	return nil
}

func Joined(work func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go dep.Worker(&wg, work)
	wg.Wait()
}

func Watched(ctx context.Context, events <-chan string) {
	go dep.Watch(ctx, events, func(string) {})
}

func Names(ctx context.Context, keys []string) []string {
	var out []string
	for range keys {
		t, _ := dep.Tenant(ctx)
		out = append(out, t)
	}
	return out
}

func Retry(ctx context.Context, op func(context.Context) error) {
	for i := 0; ; i++ {
		if err := op(ctx); err == nil {
			return
		}
		dep.Backoff(i)
	}
}
