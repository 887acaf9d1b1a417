package orphan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"heldoutr5a/internal/syncx"
)

// Lookup is a slow dependency call.
type Lookup func(ctx context.Context, key string) (string, error)

// LookupWithBudget gives up on its own timer but, before returning, cancels the lookup's context and
// receives the goroutine's result. The unbuffered send therefore always finds a receiver.
// ok: orphansend
func LookupWithBudget(ctx context.Context, key string, budget time.Duration, lookup Lookup) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type res struct {
		v   string
		err error
	}
	ch := make(chan res)
	go func() {
		v, err := lookup(ctx, key)
		ch <- res{v: v, err: err}
	}()
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-t.C:
		cancel()
		r := <-ch
		if r.err != nil {
			return "", fmt.Errorf("lookup %s over budget: %w", key, r.err)
		}
		return r.v, nil
	}
}

// WatchPrices forwards quotes through syncx.SendCtx, which gives up on the same ctx the receiver
// watches; when the consumer leaves on ctx.Done the producer's send is released by that same signal.
// ok: orphansend
func WatchPrices(ctx context.Context, quotes func(ctx context.Context) (float64, error), handle func(float64)) error {
	ch := make(chan float64)
	errc := make(chan error, 1)
	go func() {
		for {
			q, err := quotes(ctx)
			if err != nil {
				errc <- err
				return
			}
			if err := syncx.SendCtx(ctx, ch, q); err != nil {
				errc <- err
				return
			}
		}
	}()
	for {
		select {
		case q := <-ch:
			handle(q)
		case err := <-errc:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ChecksumAll makes an unbuffered channel per iteration, but each iteration receives from it
// unconditionally; there is no path on which the receiver gives up, so no send can be orphaned.
// ok: orphansend
func ChecksumAll(ctx context.Context, paths []string, sum func(ctx context.Context, path string) (string, error)) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		ch := make(chan error)
		var digest string
		go func() {
			d, err := sum(ctx, p)
			digest = d
			ch <- err
		}()
		if err := <-ch; err != nil {
			return nil, fmt.Errorf("checksum %s: %w", p, err)
		}
		out[p] = digest
	}
	return out, nil
}

// FirstReady starts one probe per replica and returns when any of them succeeds. Winners signal by
// closing a channel under sync.Once rather than sending, so losers never block on anything.
// ok: orphansend
func FirstReady(ctx context.Context, replicas []string, ready func(ctx context.Context, addr string) bool) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once   sync.Once
		wg     sync.WaitGroup
		winner string
	)
	won := make(chan struct{})
	for _, r := range replicas {
		wg.Go(func() {
			if ready(ctx, r) {
				once.Do(func() {
					winner = r
					close(won)
				})
			}
		})
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-won:
		return winner, nil
	case <-finished:
		select {
		case <-won:
			return winner, nil
		default:
			return "", ErrNoReplicaReady
		}
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// ErrNoReplicaReady is returned by FirstReady when every probe reported not ready.
var ErrNoReplicaReady = errors.New("no replica ready")
