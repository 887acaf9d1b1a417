// Package orphan holds goroutines whose result send may, or may not, outlive its receiver.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// ErrExecTimeout is returned when a session does not finish in time.
var ErrExecTimeout = errors.New("exec: timed out")

// Async runs f in the background and returns a channel that will carry its result. The channel is
// unbuffered, so a caller that stops waiting (WaitTimeout's timer fires) leaves the goroutine blocked
// on its send forever.
// From: codeskyblue/go-sh#26
// bug: orphansend
func Async(f func() error) <-chan error {
	ch := make(chan error)
	go func() { ch <- f() }()
	return ch
}

// AsyncBuffered gives the result channel room for the one value the goroutine sends, so the send
// completes whether or not anybody is still waiting.
// ok: orphansend
func AsyncBuffered(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// Session wraps a started command.
type Session struct {
	cmd *exec.Cmd
}

// WaitTimeout waits for the session's command, killing it after timeout. Giving up on a future is
// legitimate here; whether the sender survives depends on how the future was built.
// ok: orphansend
func (s *Session) WaitTimeout(timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-t.C:
		if err := s.cmd.Process.Kill(); err != nil {
			return errors.Join(ErrExecTimeout, err)
		}
		return ErrExecTimeout
	case err := <-AsyncBuffered(s.cmd.Wait):
		return err
	}
}

// result carries a Future's outcome.
type result[T any] struct {
	val T
	err error
}

// Future is the pending result of a background call.
type Future[T any] struct {
	ch chan result[T]
}

// Spawn starts fn and returns its future. The future's channel is created unbuffered, so if the
// consumer's Get returns on ctx.Done (or the future is simply dropped after an early return), the
// spawned goroutine blocks on the send with nobody left to receive.
// From: samber/lo#319
// bug: orphansend
func Spawn[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{ch: make(chan result[T])}
	go func() {
		v, err := fn()
		f.ch <- result[T]{val: v, err: err}
	}()
	return f
}

// SpawnBuffered builds the same future with a one-slot channel, as the upstream fix did, so the
// producer never waits for the consumer.
// ok: orphansend
func SpawnBuffered[T any](fn func() (T, error)) *Future[T] {
	f := &Future[T]{ch: make(chan result[T], 1)}
	go func() {
		v, err := fn()
		f.ch <- result[T]{val: v, err: err}
	}()
	return f
}

// Get waits for the value or for ctx.
// ok: orphansend
func (f *Future[T]) Get(ctx context.Context) (T, error) {
	select {
	case r := <-f.ch:
		return r.val, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// FastestMirror probes the primary and the secondary mirror concurrently and picks whichever answers
// first. Each probe's channel is unbuffered, so the slower probe's goroutine blocks on its send after
// FastestMirror has returned with the winner: one goroutine leaked per call.
// From: quii/learn-go-with-tests#257
// bug: orphansend
func FastestMirror(ctx context.Context, primary, secondary string, probe func(context.Context, string) error) (string, error) {
	ping := func(url string) <-chan error {
		ch := make(chan error)
		go func() { ch <- probe(ctx, url) }()
		return ch
	}
	a, b := ping(primary), ping(secondary)
	select {
	case err := <-a:
		if err != nil {
			return "", fmt.Errorf("probe %s: %w", primary, err)
		}
		return primary, nil
	case err := <-b:
		if err != nil {
			return "", fmt.Errorf("probe %s: %w", secondary, err)
		}
		return secondary, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// FastestMirrorBuffered gives each probe a one-slot channel (the fix from the report), so the loser's
// send lands in the buffer and its goroutine exits.
// ok: orphansend
func FastestMirrorBuffered(ctx context.Context, primary, secondary string, probe func(context.Context, string) error) (string, error) {
	ping := func(url string) <-chan error {
		ch := make(chan error, 1)
		go func() { ch <- probe(ctx, url) }()
		return ch
	}
	a, b := ping(primary), ping(secondary)
	select {
	case err := <-a:
		if err != nil {
			return "", fmt.Errorf("probe %s: %w", primary, err)
		}
		return primary, nil
	case err := <-b:
		if err != nil {
			return "", fmt.Errorf("probe %s: %w", secondary, err)
		}
		return secondary, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
