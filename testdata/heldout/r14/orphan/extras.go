package orphan

import (
	"context"
	"sync"
)

// checksum computes in a goroutine and always waits for it: the unbuffered
// send has a receiver that never leaves.
//
// ok: orphansend
func checksum(data []byte) uint32 {
	ch := make(chan uint32)
	go func() {
		var s uint32
		for _, b := range data {
			s = s*31 + uint32(b)
		}
		ch <- s
	}()
	return <-ch
}

// produce sends on an unbuffered channel but gives up the send when ctx
// ends, so a consumer that returns on ctx.Done strands nothing.
//
// ok: orphansend
func produce(ctx context.Context, next func() (int, bool)) <-chan int {
	out := make(chan int)
	go func() {
		defer close(out)
		for {
			v, ok := next()
			if !ok {
				return
			}
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// firstOf asks every replica and returns the first answer; the channel has
// a slot for every replica, so the slower ones can still deliver and exit.
//
// ok: orphansend
func firstOf(ctx context.Context, query string, replicas []func(context.Context, string) string) (string, error) {
	c := make(chan string, len(replicas))
	for _, r := range replicas {
		go func() { c <- r(ctx, query) }()
	}
	select {
	case v := <-c:
		return v, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// collectAll reads exactly as many results as it started goroutines,
// even after an error, before returning.
//
// ok: orphansend
func collectAll(ctx context.Context, keys []string, get func(context.Context, string) (string, error)) ([]string, error) {
	type res struct {
		i   int
		v   string
		err error
	}
	ch := make(chan res)
	var once sync.Once
	var firstErr error
	for i, k := range keys {
		go func() {
			v, err := get(ctx, k)
			ch <- res{i, v, err}
		}()
	}
	out := make([]string, len(keys))
	for range keys {
		r := <-ch
		if r.err != nil {
			once.Do(func() { firstErr = r.err })
			continue
		}
		out[r.i] = r.v
	}
	return out, firstErr
}
