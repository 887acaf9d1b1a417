// Package groups holds goroutines started on groups whose owner can
// return without waiting.
package groups

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/errgroup"
)

type feed struct{}

func (feed) Close() error { return nil }

func open(ctx context.Context, name string) (feed, error) { return feed{}, ctx.Err() }
func drain(ctx context.Context, f feed) error             { return ctx.Err() }

// An open error returns before the Wait: the started goroutines go on.
func pullAll(ctx context.Context, names []string) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, n := range names {
		f, err := open(gctx, n)
		if err != nil {
			return err
		}
		g.Go(func() error { // want `goroutine started by g.Go is not waited for on every path: pullAll reaches a return without g.Wait, so the goroutines keep running after it has returned and their errors are lost`
			defer f.Close()
			return drain(gctx, f)
		})
	}
	return g.Wait()
}

// Near-miss: every path waits.
func pullAllWaited(ctx context.Context, names []string) error {
	g, gctx := errgroup.WithContext(ctx)
	var firstErr error
	for _, n := range names {
		f, err := open(gctx, n)
		if err != nil {
			firstErr = err
			break
		}
		g.Go(func() error {
			defer f.Close()
			return drain(gctx, f)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return firstErr
}

// Near-miss: a deferred Wait covers every return.
func pullAllDeferred(ctx context.Context, names []string) (err error) {
	var g errgroup.Group
	defer func() {
		if werr := g.Wait(); err == nil {
			err = werr
		}
	}()
	for _, n := range names {
		f, err := open(ctx, n)
		if err != nil {
			return err
		}
		g.Go(func() error { return drain(ctx, f) })
	}
	return nil
}

// Near-miss: the group is handed to the caller, who waits.
func startAll(ctx context.Context, names []string) *errgroup.Group {
	g, gctx := errgroup.WithContext(ctx)
	for _, n := range names {
		g.Go(func() error { return drain(gctx, feed{}) })
		_ = n
	}
	return g
}

// A WaitGroup.Go worker pool whose owner returns on cancellation before
// closing the jobs and waiting: the workers block on jobs forever.
func processQueue(ctx context.Context, reqs []int, workers int, handle func(int)) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { // want `goroutine started by wg.Go is not waited for on every path: processQueue reaches a return without wg.Wait, so the goroutines keep running after it has returned$`
			for r := range jobs {
				handle(r)
			}
		})
	}
	for _, r := range reqs {
		select {
		case jobs <- r:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// Near-miss: the cancellation path closes the jobs and waits too.
func processQueueWaited(ctx context.Context, reqs []int, workers int, handle func(int)) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for r := range jobs {
				handle(r)
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for _, r := range reqs {
		select {
		case jobs <- r:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

var errHalt = errors.New("halt")

// A panic path is no return.
func mustRun(ctx context.Context, names []string) error {
	var g errgroup.Group
	g.Go(func() error { return drain(ctx, feed{}) })
	if len(names) == 0 {
		panic(errHalt)
	}
	return g.Wait()
}

// Near-miss: a closer goroutine waits and closes the results; the range
// ends only after every goroutine finished.
func resolveAll(ctx context.Context, hosts []string) []error {
	out := make(chan error, len(hosts))
	var wg sync.WaitGroup
	for range hosts {
		wg.Go(func() { out <- drain(ctx, feed{}) })
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	var errs []error
	for err := range out {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// batcher holds the group its consumers run in; Close waits for it.
type batcher struct {
	in chan int
	g  *errgroup.Group
}

// The group is stored in the value the constructor returns: whoever holds
// it waits (Close), so the constructor's own return is not a leak.
func newBatcher(ctx context.Context, n int) *batcher {
	g, ctx := errgroup.WithContext(ctx)
	b := &batcher{in: make(chan int), g: g}
	for range n {
		g.Go(func() error { return b.consume(ctx) })
	}
	return b
}

// Stored after the start, in a field.
func (b *batcher) restart(ctx context.Context) {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return b.consume(ctx) })
	b.g = g
}

// A group only a local holds, copied to another local, is still the
// constructor's to wait for.
func newBatcherLocal(ctx context.Context, n int) *batcher {
	g, ctx := errgroup.WithContext(ctx)
	h := g
	b := &batcher{in: make(chan int)}
	for range n {
		h.Go(func() error { return b.consume(ctx) }) // want `goroutine started by h.Go is not waited for on every path: newBatcherLocal reaches a return without h.Wait`
	}
	return b
}

func (b *batcher) consume(ctx context.Context) error {
	for range b.in {
	}
	return ctx.Err()
}

func (b *batcher) Close() error {
	close(b.in)
	return b.g.Wait()
}
