// Package orphan holds goroutine result sends and whether they can block
// forever after the receiver gave up.
package orphan

import (
	"context"
	"errors"
	"iter"
	"os/exec"
	"time"
)

// Check is one health check.
type Check func(ctx context.Context) error

// ErrCheckTimeout is returned when a check does not answer in time.
var ErrCheckTimeout = errors.New("check timed out")

// RunCheck waits for the check or a timeout with an unbuffered result
// channel; after the timeout nobody receives and the check goroutine blocks
// on its send forever.
// From: hellofresh/health-go#224
// bug: orphansend
func RunCheck(ctx context.Context, c Check, d time.Duration) error {
	res := make(chan error)
	go func() {
		res <- c(ctx)
	}()
	select {
	case err := <-res:
		return err
	case <-time.After(d):
		return ErrCheckTimeout
	}
}

// RunCheckBuffered gives the channel room for the one result.
// ok: orphansend
func RunCheckBuffered(ctx context.Context, c Check, d time.Duration) error {
	res := make(chan error, 1)
	go func() {
		res <- c(ctx)
	}()
	select {
	case err := <-res:
		return err
	case <-time.After(d):
		return ErrCheckTimeout
	}
}

// Breaker runs calls and gives up when ctx is done.
type Breaker struct {
	Fn func() (string, error)
}

type outcome struct {
	v   string
	err error
}

// Call returns ctx.Err() when the caller's context ends first; the call's
// goroutine then blocks forever sending to the unbuffered channel.
// From: rubyist/circuitbreaker#35
// bug: orphansend
func (b *Breaker) Call(ctx context.Context) (string, error) {
	ch := make(chan outcome)
	go func() {
		v, err := b.Fn()
		ch <- outcome{v, err}
	}()
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// CallBuffered uses a buffered channel.
// ok: orphansend
func (b *Breaker) CallBuffered(ctx context.Context) (string, error) {
	ch := make(chan outcome, 1)
	go func() {
		v, err := b.Fn()
		ch <- outcome{v, err}
	}()
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// ValidateAll validates shards concurrently and returns on the first error;
// the remaining goroutines block on the unbuffered errc forever.
// From: moby/moby#40994
// bug: orphansend
func ValidateAll(ctx context.Context, shards []string, v func(context.Context, string) error) error {
	errc := make(chan error)
	for _, s := range shards {
		go func() { errc <- v(ctx, s) }()
	}
	for range shards {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

// ValidateAllBuffered sizes the channel for every sender.
// ok: orphansend
func ValidateAllBuffered(ctx context.Context, shards []string, v func(context.Context, string) error) error {
	errc := make(chan error, len(shards))
	for _, s := range shards {
		go func() { errc <- v(ctx, s) }()
	}
	for range shards {
		if err := <-errc; err != nil {
			return err
		}
	}
	return nil
}

// Session wraps a started command.
type Session struct {
	Cmd *exec.Cmd
}

// WaitTimeout kills the process on timeout and returns; the goroutine
// running Wait then blocks forever on the unbuffered channel.
// From: codeskyblue/go-sh#26
// bug: orphansend
func (s *Session) WaitTimeout(d time.Duration) error {
	done := make(chan error)
	go func() { done <- s.Cmd.Wait() }()
	select {
	case <-time.After(d):
		_ = s.Cmd.Process.Kill()
		return errors.New("exec timeout")
	case err := <-done:
		return err
	}
}

// WaitTimeoutBuffered uses a one-slot channel.
// ok: orphansend
func (s *Session) WaitTimeoutBuffered(d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- s.Cmd.Wait() }()
	select {
	case <-time.After(d):
		_ = s.Cmd.Process.Kill()
		return errors.New("exec timeout")
	case err := <-done:
		return err
	}
}

// FirstOf races fns and returns the first result; every slower fn blocks
// forever on the unbuffered channel.
// From: quii/learn-go-with-tests#257
// bug: orphansend
func FirstOf[T any](ctx context.Context, fns ...func(context.Context) T) T {
	ch := make(chan T)
	for _, f := range fns {
		go func() { ch <- f(ctx) }()
	}
	return <-ch
}

// FirstOfBuffered has a slot per racer.
// ok: orphansend
func FirstOfBuffered[T any](ctx context.Context, fns ...func(context.Context) T) T {
	ch := make(chan T, len(fns))
	for _, f := range fns {
		go func() { ch <- f(ctx) }()
	}
	return <-ch
}

// Numbers streams values produced by a goroutine. If the range loop stops
// early (break), yield returns false and the iterator returns, but the
// producer is stuck sending to the unbuffered channel forever.
// From: BishopFox/sliver#1089
// bug: orphansend
func Numbers(ctx context.Context, gen func(context.Context, int) int, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		ch := make(chan int)
		go func() {
			defer close(ch)
			for i := range n {
				ch <- gen(ctx, i)
			}
		}()
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	}
}

// NumbersStoppable closes a stop channel when the iterator returns, and the
// producer selects on it.
// ok: orphansend
func NumbersStoppable(ctx context.Context, gen func(context.Context, int) int, n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		ch := make(chan int)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(ch)
			for i := range n {
				select {
				case ch <- gen(ctx, i):
				case <-stop:
					return
				}
			}
		}()
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	}
}

// Compute uses an unbuffered channel, but the sender also selects on a
// context that the deferred cancel ends when Compute gives up, so the
// sender is released.
// ok: orphansend
func Compute(parent context.Context, d time.Duration, f func(context.Context) int) (int, error) {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	ch := make(chan int)
	go func() {
		v := f(ctx)
		select {
		case ch <- v:
		case <-ctx.Done():
		}
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// CheckAll uses an unbuffered channel but receives every result even after
// the first error, so no sender is left behind.
// ok: orphansend
func CheckAll(ctx context.Context, checks []Check) error {
	errc := make(chan error)
	for _, c := range checks {
		go func() { errc <- c(ctx) }()
	}
	var first error
	for range checks {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}
