package a

import (
	"bytes"
	"context"
	"errors"
	"io"

	"golang.org/x/sync/errgroup"
)

// ---- functions only a group literal calls, returning what they return ----

type jobPool struct{ jobs chan int }

// worker's error is the group literal's: returning nil on the group's Done
// is the group idiom, and drainJobs's Wait reports what canceled it.
func (p *jobPool) worker(ctx context.Context, out chan<- int) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case j, ok := <-p.jobs:
			if !ok {
				return nil
			}
			out <- j * 2
		}
	}
}

func (p *jobPool) drainJobs(ctx context.Context, out chan<- int) error {
	g, ctx := errgroup.WithContext(ctx)
	for range 4 {
		g.Go(func() error { return p.worker(ctx, out) })
	}
	return g.Wait()
}

// collector is worker for an owner that returns what the goroutines
// produced: when collectAll's caller cancels, every goroutine returns nil,
// Wait returns nil and the partial sum goes out as complete.
func collector(ctx context.Context, in <-chan int, sum *int) error {
	for {
		select {
		case <-ctx.Done():
			return nil // want `collector returns a nil error when ctx is done`
		case v, ok := <-in:
			if !ok {
				return nil
			}
			*sum += v
		}
	}
}

func collectAll(ctx context.Context, in <-chan int) (int, error) {
	var sum int
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return collector(gctx, in, &sum) })
	if err := g.Wait(); err != nil {
		return 0, err
	}
	return sum, nil
}

// relay is returned by a group literal but also called directly, whose
// caller takes its nil for a finished relay.
func relay(ctx context.Context, in <-chan int, out chan<- int) error {
	for {
		select {
		case <-ctx.Done():
			return nil // want `relay returns a nil error when ctx is done`
		case v := <-in:
			out <- v
		}
	}
}

func relayGroup(ctx context.Context, in <-chan int, out chan<- int) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return relay(ctx, in, out) })
	return g.Wait()
}

func relayOnce(ctx context.Context, in <-chan int, out chan<- int) error {
	return relay(ctx, in, out)
}

// ---- callbacks handed to a call that holds the same context ----

type idLister interface {
	List(ctx context.Context, fn func(id int) error) error
}

// The callback's nil goes back to List, which holds ctx and reports its
// end itself.
func listInto(ctx context.Context, l idLister, ch chan<- int) error {
	return l.List(ctx, func(id int) error {
		select {
		case <-ctx.Done():
			return nil
		case ch <- id:
		}
		return nil
	})
}

func walkIDs(_ context.Context, ids []int, fn func(int) error) error {
	for _, id := range ids {
		if err := fn(id); err != nil {
			return err
		}
	}
	return nil
}

// walkIDs leaves its context unused, so nothing reports the end of ctx but
// the callback, which turns it into nil.
func walkInto(ctx context.Context, ids []int, ch chan<- int) error {
	return walkIDs(ctx, ids, func(id int) error {
		select {
		case <-ctx.Done():
			return nil // want `function literal returns a nil error when ctx is done`
		case ch <- id:
		}
		return nil
	})
}

// List is given another context than the one the callback waits on: the
// end of jobCtx reaches no one.
func listOther(ctx, jobCtx context.Context, l idLister, ch chan<- int) error {
	return l.List(ctx, func(id int) error {
		select {
		case <-jobCtx.Done():
			return nil // want `function literal returns a nil error when jobCtx is done`
		case ch <- id:
		}
		return nil
	})
}

// ---- a cancellation the function causes itself ----

type keyStore interface {
	ListKeys(ctx context.Context, fn func(id string) error) error
}

// findKey stops the listing with its own cancel once it has the key: the
// Canceled out of ListKeys is that stop.
func findKey(ctx context.Context, ks keyStore, want string) (string, error) {
	listCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found string
	err := ks.ListKeys(listCtx, func(id string) error {
		if id == want {
			found = id
			cancel()
		}
		return nil
	})
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return found, nil
}

// Near-miss: the derived context is only released on the way out, so a
// Canceled out of ListKeys is the caller's.
func findKeyDeferred(ctx context.Context, ks keyStore, want string) (string, error) {
	listCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var found string
	err := ks.ListKeys(listCtx, func(id string) error {
		if id == want {
			found = id
		}
		return nil
	})
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch sets it to nil`
		err = nil
	}
	if err != nil {
		return "", err
	}
	return found, nil
}

// ---- a timeout answered with a stand-in ----

var offlineImage = []byte("offline")

type imageSource interface {
	Fetch(ctx context.Context, name string) ([]byte, error)
}

// A timed-out fetch is answered with the offline image: a degraded answer
// the function chose.
func backgroundImage(ctx context.Context, src imageSource, name string) (io.Reader, error) {
	b, err := src.Fetch(ctx, name)
	if errors.Is(err, context.DeadlineExceeded) {
		return bytes.NewReader(offlineImage), nil
	}
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}

// Near-miss: the pages gathered before the timeout go out as the whole
// listing.
func listPages(ctx context.Context, src imageSource, names []string) ([][]byte, error) {
	var pages [][]byte
	for _, n := range names {
		b, err := src.Fetch(ctx, n)
		if errors.Is(err, context.DeadlineExceeded) { // want `when err is a deadline.s expiry this branch returns a nil error, so listPages reports success for work that timed out`
			return pages, nil
		}
		if err != nil {
			return nil, err
		}
		pages = append(pages, b)
	}
	return pages, nil
}
