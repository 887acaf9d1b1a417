// Package orphan holds goroutines that deliver a result on a channel, and
// the question of whether anyone is still there to receive it.
package orphan

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// doWithTimeout runs do and waits at most timeout for it, reporting whether
// it finished in time.
//
// From: open-telemetry/opentelemetry-collector-contrib#1505
// bug: orphansend
func doWithTimeout(timeout time.Duration, do func() error) (bool, error) {
	done := make(chan error)
	go func() {
		done <- do()
	}()
	select {
	case <-time.After(timeout):
		return false, nil
	case err := <-done:
		return true, err
	}
}

// doWithTimeoutNearMiss leaves room for the one result.
//
// ok: orphansend
func doWithTimeoutNearMiss(timeout time.Duration, do func() error) (bool, error) {
	done := make(chan error, 1)
	go func() {
		done <- do()
	}()
	select {
	case <-time.After(timeout):
		return false, nil
	case err := <-done:
		return true, err
	}
}

// eventMachine dispatches trace events.
type eventMachine struct {
	timeout time.Duration
	log     *slog.Logger
}

// handleEvent runs one event handler with the machine's timeout.
//
// ok: orphansend
func (em *eventMachine) handleEvent(name string, do func() error) {
	ok, err := doWithTimeoutNearMiss(em.timeout, do)
	if !ok {
		em.log.Warn("event handler timed out", "event", name)
		return
	}
	if err != nil {
		em.log.Warn("event handler failed", "event", name, "err", err)
	}
}

// ExecFuncWithTwoReturns runs fn and returns its results, or ctx's error if
// ctx ends first.
//
// From: projectdiscovery/utils#759
// bug: orphansend
func ExecFuncWithTwoReturns[T1, T2 any](ctx context.Context, fn func() (T1, T2)) (T1, T2, error) {
	type result struct {
		a T1
		b T2
	}
	ch := make(chan result)
	go func() {
		a, b := fn()
		ch <- result{a, b}
	}()
	select {
	case <-ctx.Done():
		var z1 T1
		var z2 T2
		return z1, z2, ctx.Err()
	case r := <-ch:
		return r.a, r.b, nil
	}
}

// ExecFuncWithTwoReturnsNearMiss buffers the result channel.
//
// ok: orphansend
func ExecFuncWithTwoReturnsNearMiss[T1, T2 any](ctx context.Context, fn func() (T1, T2)) (T1, T2, error) {
	type result struct {
		a T1
		b T2
	}
	ch := make(chan result, 1)
	go func() {
		a, b := fn()
		ch <- result{a, b}
	}()
	select {
	case <-ctx.Done():
		var z1 T1
		var z2 T2
		return z1, z2, ctx.Err()
	case r := <-ch:
		return r.a, r.b, nil
	}
}

// Reader is an io.Reader.
type Reader interface {
	Read(p []byte) (int, error)
}

// ConnReadN reads up to n bytes or gives up when ctx ends.
//
// ok: orphansend
func ConnReadN(ctx context.Context, r Reader, n int) ([]byte, error) {
	buf := make([]byte, n)
	got, rerr, err := ExecFuncWithTwoReturnsNearMiss(ctx, func() (int, error) { return r.Read(buf) })
	if err != nil {
		return nil, err
	}
	if rerr != nil && !errors.Is(rerr, context.Canceled) {
		return buf[:got], rerr
	}
	return buf[:got], nil
}

// WaitGroupLike is the subset of sync.WaitGroup used here.
type WaitGroupLike interface {
	Wait()
}

// WaitTimeout waits for wg, giving up after timeout.
//
// From: lifei6671/interview-go#33
// bug: orphansend
func WaitTimeout(wg WaitGroupLike, timeout time.Duration) bool {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		ch <- struct{}{}
	}()
	select {
	case <-ch:
		return true
	case <-time.After(timeout):
		return false
	}
}

// WaitTimeoutNearMiss signals by closing, which never blocks.
//
// ok: orphansend
func WaitTimeoutNearMiss(wg WaitGroupLike, timeout time.Duration) bool {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		close(ch)
	}()
	select {
	case <-ch:
		return true
	case <-time.After(timeout):
		return false
	}
}
