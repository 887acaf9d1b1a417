package worker

import (
	"context"
	"log"

	"github.com/cancelcheck/cancelcheck/rt/scope"
)

// The scope's error (ctx's cancellation among them) is only logged.
func putScoped(ctx context.Context, keys []string) error {
	sc, _ := scope.New(ctx)
	for _, k := range keys {
		sc.Go("put "+k, func(ctx context.Context) error { return put(ctx, k) })
	}
	if err := sc.Wait(); err != nil { // want `err may carry the cancellation of ctx and is only logged, so putScoped goes on and returns success`
		log.Print(err)
	}
	return nil
}

// Near-miss: the scope's error is returned.
func putScopedOK(ctx context.Context, keys []string) error {
	sc, _ := scope.New(ctx)
	for _, k := range keys {
		sc.Go("put "+k, func(ctx context.Context) error { return put(ctx, k) })
	}
	return sc.Wait()
}
