package orphan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Chunk is a content-addressed piece of a feed.
type Chunk struct {
	Index uint64
	Data  []byte
}

type chunkGetter interface {
	Get(ctx context.Context, index uint64) (*Chunk, error)
}

// FeedFinder looks up the latest update of a sequential feed.
type FeedFinder struct {
	getter chunkGetter
}

// asyncGet starts a lookup and returns a channel that yields its result.
// From: ethersphere/bee#3529
// bug: orphansend
func (f *FeedFinder) asyncGet(ctx context.Context, index uint64) <-chan *Chunk {
	c := make(chan *Chunk)
	go func() {
		ch, err := f.getter.Get(ctx, index)
		if err != nil {
			ch = nil
		}
		c <- ch
	}()
	return c
}

// asyncGetNearMiss gives up delivering once the caller's ctx is done.
// ok: orphansend
func (f *FeedFinder) asyncGetNearMiss(ctx context.Context, index uint64) <-chan *Chunk {
	c := make(chan *Chunk)
	go func() {
		ch, err := f.getter.Get(ctx, index)
		if err != nil {
			ch = nil
		}
		select {
		case c <- ch:
		case <-ctx.Done():
		}
	}()
	return c
}

// Latest probes indexes at and at+1 and returns whichever answers first
// with a chunk.
// ok: orphansend
func (f *FeedFinder) Latest(ctx context.Context, at uint64) (*Chunk, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lo := f.asyncGetNearMiss(ctx, at)
	hi := f.asyncGetNearMiss(ctx, at+1)
	var found *Chunk
	for lo != nil || hi != nil {
		select {
		case c := <-hi:
			if c != nil {
				return c, nil
			}
			hi = nil
		case c := <-lo:
			found = c
			lo = nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if found == nil {
		return nil, fmt.Errorf("feed: no update at %d", at)
	}
	return found, nil
}

// Future holds the eventual result of an asynchronous call.
type Future[T any] struct {
	done chan result[T]
}

type result[T any] struct {
	val T
	err error
}

// Async runs fn in the background and returns a future for its result.
// From: ycl2018/go-future#24
// bug: orphansend
func Async[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{done: make(chan result[T])}
	go func() {
		v, err := fn()
		f.done <- result[T]{val: v, err: err}
	}()
	return f
}

// Await waits for the result or for ctx to end.
// ok: orphansend
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	select {
	case r := <-f.done:
		return r.val, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// AsyncNearMiss stores the result in a one-slot channel.
// ok: orphansend
func AsyncNearMiss[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{done: make(chan result[T], 1)}
	go func() {
		v, err := fn()
		f.done <- result[T]{val: v, err: err}
	}()
	return f
}

type revisionSource interface {
	Revision(ctx context.Context) (string, error)
}

// HedgingProxy issues a second request when the first is slow.
type HedgingProxy struct {
	delegate   revisionSource
	hedgeAfter time.Duration
}

// Revision returns the datastore revision from the faster of two requests.
// From: authzed/spicedb#242
// bug: orphansend
func (p *HedgingProxy) Revision(ctx context.Context) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type answer struct {
		rev string
		err error
	}
	first := make(chan answer)
	hedged := make(chan answer)
	call := func(out chan<- answer) {
		rev, err := p.delegate.Revision(ctx)
		out <- answer{rev, err}
	}

	go call(first)
	t := time.NewTimer(p.hedgeAfter)
	defer t.Stop()
	select {
	case a := <-first:
		return a.rev, a.err
	case <-t.C:
	}

	go call(hedged)
	select {
	case a := <-first:
		return a.rev, a.err
	case a := <-hedged:
		return a.rev, a.err
	}
}

// RevisionNearMiss buffers both answer channels so the loser can finish.
// ok: orphansend
func (p *HedgingProxy) RevisionNearMiss(ctx context.Context) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type answer struct {
		rev string
		err error
	}
	first := make(chan answer, 1)
	hedged := make(chan answer, 1)
	call := func(out chan<- answer) {
		rev, err := p.delegate.Revision(ctx)
		out <- answer{rev, err}
	}

	go call(first)
	t := time.NewTimer(p.hedgeAfter)
	defer t.Stop()
	select {
	case a := <-first:
		return a.rev, a.err
	case <-t.C:
	}

	go call(hedged)
	select {
	case a := <-first:
		return a.rev, a.err
	case a := <-hedged:
		return a.rev, a.err
	}
}

type nameResolver interface {
	Lookup(ctx context.Context, name string) ([]string, error)
}

// HedgedResolver sends up to upto copies of a lookup, spaced by delay.
type HedgedResolver struct {
	backend nameResolver
	upto    int
	delay   time.Duration
}

// Resolve returns the addresses from the first lookup that succeeds.
// From: cristalhq/hedgedhttp#2
// bug: orphansend
func (h *HedgedResolver) Resolve(ctx context.Context, name string) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resultc := make(chan []string, 1)
	errc := make(chan error, h.upto)

	for i := 0; i < h.upto; i++ {
		go func() {
			addrs, err := h.backend.Lookup(ctx, name)
			if err != nil {
				errc <- err
				return
			}
			resultc <- addrs
		}()

		t := time.NewTimer(h.delay)
		select {
		case addrs := <-resultc:
			t.Stop()
			return addrs, nil
		case <-t.C:
		}
	}

	var errs []error
	for {
		select {
		case addrs := <-resultc:
			return addrs, nil
		case err := <-errc:
			errs = append(errs, err)
			if len(errs) == h.upto {
				return nil, errors.Join(errs...)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// ResolveNearMiss has a result slot for every attempt.
// ok: orphansend
func (h *HedgedResolver) ResolveNearMiss(ctx context.Context, name string) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resultc := make(chan []string, h.upto)
	errc := make(chan error, h.upto)

	for i := 0; i < h.upto; i++ {
		go func() {
			addrs, err := h.backend.Lookup(ctx, name)
			if err != nil {
				errc <- err
				return
			}
			resultc <- addrs
		}()

		t := time.NewTimer(h.delay)
		select {
		case addrs := <-resultc:
			t.Stop()
			return addrs, nil
		case <-t.C:
		}
	}

	var errs []error
	for {
		select {
		case addrs := <-resultc:
			return addrs, nil
		case err := <-errc:
			errs = append(errs, err)
			if len(errs) == h.upto {
				return nil, errors.Join(errs...)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Detector recognises a dependency manager from repository files.
type Detector interface {
	Name() string
	Detect(ctx context.Context, repo string) (bool, error)
}

// DetectTool runs all detectors and returns the first that matches.
// From: stamm/dep_radar#28
// bug: orphansend
func DetectTool(ctx context.Context, repo string, detectors []Detector) (string, error) {
	found := make(chan string)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range detectors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := d.Detect(ctx, repo)
			if err == nil && ok {
				found <- d.Name()
			}
		}()
	}
	go func() {
		wg.Wait()
		done <- struct{}{}
	}()
	select {
	case name := <-found:
		return name, nil
	case <-done:
		return "", fmt.Errorf("no dependency tool detected in %s", repo)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// DetectToolNearMiss buffers matches and closes done instead of sending.
// ok: orphansend
func DetectToolNearMiss(ctx context.Context, repo string, detectors []Detector) (string, error) {
	found := make(chan string, len(detectors))
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range detectors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := d.Detect(ctx, repo)
			if err == nil && ok {
				found <- d.Name()
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case name := <-found:
		return name, nil
	case <-done:
		select {
		case name := <-found:
			return name, nil
		default:
		}
		return "", fmt.Errorf("no dependency tool detected in %s", repo)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
