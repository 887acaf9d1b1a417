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

type kvIter interface {
	Next() bool
	Entry() *kvEntry
	Err() error
}

type kvEntry struct{ Key []byte }

func del(ctx context.Context, key []byte) error { return ctx.Err() }

// A walk over an iterator: each round deletes the element the condition
// advanced to, not the same one again.
func deleteAll(ctx context.Context, it kvIter) []error {
	var errs []error
	for it.Next() {
		e := it.Entry()
		if err := del(ctx, e.Key); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// The same condition with a fixed key asks for the same thing again.
func deleteSame(ctx context.Context, it kvIter, key []byte) {
	for it.Next() { // want `this retry loop in deleteSame calls del again after it fails`
		if err := del(ctx, key); err != nil {
			continue
		}
	}
}
