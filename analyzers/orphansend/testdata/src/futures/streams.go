package futures

import (
	"context"
	"time"
)

type retrier struct{ base time.Duration }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// attempts feeds attempt numbers with sends that watch nothing.
func (r *retrier) attempts(ctx context.Context, max int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range max {
			ch <- i // want `this send on ch, which attempts returns to its caller, waits for a receiver with no way out: a caller that stops receiving before the stream ends \(on its own ctx.Done\(\), or breaking out of its loop\) leaves the goroutine blocked here forever`
			if err := sleep(ctx, r.base<<i); err != nil {
				return
			}
		}
	}()
	return ch
}

// attemptsCtx gives up each send once ctx is done.
func (r *retrier) attemptsCtx(ctx context.Context, max int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range max {
			select {
			case ch <- i:
			case <-ctx.Done():
				return
			}
			if err := sleep(ctx, r.base<<i); err != nil {
				return
			}
		}
	}()
	return ch
}

// lines has no context: nothing to watch, and its callers drain it.
func lines(text []string) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for _, l := range text {
			ch <- l
		}
	}()
	return ch
}

// collectAll drains the channel itself: not handed to a caller.
func collectAll(ctx context.Context, items []string) []string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for _, it := range items {
			ch <- it
		}
	}()
	var out []string
	for s := range ch {
		out = append(out, s)
	}
	return out
}

type page struct {
	items []int
	next  string
}

func scan(ctx context.Context, start string) (page, error) { return page{}, ctx.Err() }

// scanAll's error channel has room for the one error it ever gets: the
// send is the goroutine's last, so it never waits, read or not.
func scanAll(ctx context.Context) (<-chan int, <-chan error) {
	items := make(chan int)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(items)
		var start string
		for {
			p, err := scan(ctx, start)
			if err != nil {
				errc <- err
				return
			}
			for _, it := range p.items {
				select {
				case items <- it:
				case <-ctx.Done():
					return
				}
			}
			if p.next == "" {
				return
			}
			start = p.next
		}
	}()
	return items, errc
}

// scanWarn can send a warning on every page: more values than the
// buffer holds.
func scanWarn(ctx context.Context) <-chan error {
	warnc := make(chan error, 1)
	go func() {
		defer close(warnc)
		var start string
		for {
			p, err := scan(ctx, start)
			if err != nil {
				warnc <- err // want `this send on warnc, which scanWarn returns to its caller, waits for a receiver with no way out`
			}
			if p.next == "" {
				return
			}
			start = p.next
		}
	}()
	return warnc
}

type destroyResult struct {
	name string
	err  error
}

func destroy(ctx context.Context, name string) error { return ctx.Err() }

// The buffer holds one result per element the producer ranges over: no
// send can block, whoever stops receiving.
func batchDestroy(ctx context.Context, names []string) <-chan destroyResult {
	res := make(chan destroyResult, len(names))
	go func() {
		for _, n := range names {
			res <- destroyResult{n, destroy(ctx, n)}
		}
		close(res)
	}()
	return res
}

// One result per element of another slice: the buffer says nothing.
func batchDestroyOther(ctx context.Context, names, extra []string) <-chan destroyResult {
	res := make(chan destroyResult, len(names))
	go func() {
		for _, n := range extra {
			res <- destroyResult{n, destroy(ctx, n)} // want `this send on res, which batchDestroyOther returns to its caller, waits for a receiver with no way out`
		}
		close(res)
	}()
	return res
}

// Two sends per element overflow it.
func batchDestroyTwice(ctx context.Context, names []string) <-chan destroyResult {
	res := make(chan destroyResult, len(names))
	go func() {
		for _, n := range names {
			res <- destroyResult{n, destroy(ctx, n)} // want `this send on res, which batchDestroyTwice returns to its caller, waits for a receiver with no way out`
			res <- destroyResult{n, nil}
		}
		close(res)
	}()
	return res
}
