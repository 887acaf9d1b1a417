package untracked

import (
	"context"
	"sync"
)

// CompressWithin runs compress in a goroutine so the caller can stop waiting
// when ctx ends. The goroutine is joined on every path: on cancellation the
// function cancels compress's context and receives its result before
// returning.
// ok: untrackedgo
func CompressWithin(ctx context.Context, src []byte, compress func(context.Context, []byte) []byte) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan []byte, 1)
	go func() { done <- compress(ctx, src) }()
	select {
	case out := <-done:
		return out, nil
	case <-ctx.Done():
		cancel()
		<-done
		return nil, ctx.Err()
	}
}

// spawn runs fn in a goroutine accounted to wg; the caller owns wg and waits
// on it.
// ok: untrackedgo
func spawn(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
}

// IndexAll indexes every document concurrently through spawn and waits for
// all of them before returning.
// ok: untrackedgo
func IndexAll(docs []string, index func(string)) {
	var wg sync.WaitGroup
	for _, d := range docs {
		spawn(&wg, func() { index(d) })
	}
	wg.Wait()
}
