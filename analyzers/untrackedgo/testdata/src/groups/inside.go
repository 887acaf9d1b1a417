package groups

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

type notification struct{ topic string }

type notifier struct {
	in       <-chan notification
	dispatch func(ctx context.Context, n notification)
	consume  func(ctx context.Context) error
}

// run waits for its group, but the dispatches started inside the group's
// function are not in it.
func (s *notifier) run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.consume(ctx) })
	g.Go(func() error {
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case n, ok := <-s.in:
				if !ok {
					return nil
				}
				go s.dispatch(ctx, n) // want `goroutine started in a function that g runs is not counted in g: g.Wait in run returns while it still runs under ctx, so the work outlives run; start it with g.Go`
			}
		}
	})
	return g.Wait()
}

// Near-miss: every dispatch goes through the group.
func (s *notifier) runGrouped(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.consume(ctx) })
	g.Go(func() error {
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case n, ok := <-s.in:
				if !ok {
					return nil
				}
				g.Go(func() error {
					s.dispatch(ctx, n)
					return nil
				})
			}
		}
	})
	return g.Wait()
}

// The same with a sync.WaitGroup's Go.
func (s *notifier) runWG(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() {
		for n := range s.in {
			go s.dispatch(ctx, n) // want `goroutine started in a function that wg runs is not counted in wg: wg.Wait in runWG returns while it still runs under ctx`
		}
	})
	wg.Wait()
}

// Near-miss: a dispatch loop outside any group serves the owner's
// lifetime, as before.
func (s *notifier) serve(ctx context.Context) {
	for n := range s.in {
		go s.dispatch(ctx, n)
	}
}
