package a

import (
	"context"
	"runtime/pprof"
	"time"
)

func roundTrip(ctx context.Context) error { return ctx.Err() }

// Near-miss: the labels of ctx are set for the round trip and cleared
// after it; the empty context is what clears them.
func labeledRoundTrip(ctx context.Context) error {
	pprof.SetGoroutineLabels(ctx)
	defer pprof.SetGoroutineLabels(context.Background())
	return roundTrip(ctx)
}

// Labels for a call are still values of the caller's context: a fresh
// one under pprof.Do cuts the call off from ctx.
func labeledDo(ctx context.Context) {
	pprof.Do(context.Background(), pprof.Labels("op", "sync"), func(lctx context.Context) { // want `context.Background\(\) in labeledDo cuts off ctx`
		_ = roundTrip(lctx)
	})
}

func exitProcess(ctx context.Context) {}

// Stopping the process from an admin request must outlive the request; the
// values of its context can still go along.
func handleStop(ctx context.Context) {
	exitProcess(context.Background()) // want `context.Background\(\) for the cleanup call exitProcess drops the values of ctx`
}

type provider struct{}

func (p *provider) Shutdown(ctx context.Context) error { return ctx.Err() }

// Near-miss: the shutdown function is returned and runs when the caller
// shuts down, long after ctx may have ended; it bounds itself.
func buildProvider(ctx context.Context) (*provider, func() error) {
	p := &provider{}
	_ = roundTrip(ctx)
	return p, func() error {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return p.Shutdown(sctx)
	}
}
