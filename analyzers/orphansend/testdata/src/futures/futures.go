// Package futures holds one-shot result channels handed to the caller.
package futures

import (
	"context"
	"time"
)

// A caller that stops waiting strands the send.
func Async(f func() error) <-chan error {
	ch := make(chan error)
	go func() { ch <- f() }() // want `the send on ch blocks forever once the caller of Async stops waiting for the unbuffered channel it returns`
	return ch
}

// Near-miss: a buffer of one lets the send complete.
func AsyncBuffered(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

type result[T any] struct {
	val T
	err error
}

type Future[T any] struct{ ch chan result[T] }

// The channel travels in a field of the returned value.
func Spawn[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{ch: make(chan result[T])}
	go func() {
		v, err := fn()
		f.ch <- result[T]{val: v, err: err} // want `the send on f.ch blocks forever once the caller of Spawn stops waiting`
	}()
	return f
}

// Near-miss: the sender gives up with the caller's context.
func AsyncCtx(ctx context.Context, f func() error) <-chan error {
	ch := make(chan error)
	go func() {
		select {
		case ch <- f():
		case <-ctx.Done():
		}
	}()
	return ch
}

// Near-miss: a generator that closes its channel is a stream, not a
// one-shot result (and ranging callers drain it).
func Ticks(n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- i
		}
	}()
	return ch
}

// A literal that returns a future: the caller takes the first of two.
func fastest(ctx context.Context, probe func(context.Context, string) error, a, b string) string {
	ping := func(url string) <-chan error {
		ch := make(chan error)
		go func() { ch <- probe(ctx, url) }() // want `the send on ch blocks forever once the caller of function literal stops waiting`
		return ch
	}
	ca, cb := ping(a), ping(b)
	select {
	case <-ca:
		return a
	case <-cb:
		return b
	case <-time.After(time.Second):
		return ""
	}
}

// Timeout's two goroutines race for one unbuffered channel: the caller
// reads the first value, and the loser blocks forever.
func Timeout(d time.Duration, fn func()) <-chan bool {
	done := make(chan bool)
	go func() {
		fn()
		done <- true // want `the 2 goroutines Timeout starts race to send once each on the unbuffered channel done it returns: a caller that takes the first value \(or stops waiting\) leaves the others blocked on their sends forever, so they leak; give the channel a buffer of 2`
	}()
	go func() {
		time.Sleep(d)
		done <- false
	}()
	return done
}

// TimeoutBuffered gives both racers a slot.
func TimeoutBuffered(d time.Duration, fn func()) <-chan bool {
	done := make(chan bool, 2)
	go func() {
		fn()
		done <- true
	}()
	go func() {
		time.Sleep(d)
		done <- false
	}()
	return done
}

// TimeoutSelect's racers give up once the caller has taken a value.
func TimeoutSelect(d time.Duration, fn func()) (<-chan bool, func()) {
	done, quit := make(chan bool), make(chan struct{})
	go func() {
		fn()
		select {
		case done <- true:
		case <-quit:
		}
	}()
	go func() {
		time.Sleep(d)
		select {
		case done <- false:
		case <-quit:
		}
	}()
	return done, func() { close(quit) }
}

// First races two Async calls: the loser's send is stranded. Its finding
// is Async's, which names this select as the place the wait is given up.
func First(ctx context.Context, f, g func() error) error {
	ch := Async(g)
	select {
	case err := <-Async(f):
		return err
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
