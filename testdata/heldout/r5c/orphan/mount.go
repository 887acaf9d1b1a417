package orphan

import (
	"fmt"
	"time"
)

type result[T any] struct {
	val T
	err error
}

// WaitUntilTimeout runs fn and gives up after timeout. The result channel is
// unbuffered, so when the timeout wins, the goroutine's send has no receiver
// and it stays blocked forever holding fn's result (one stuck goroutine per
// timed-out mount).
// From: kubernetes-csi/csi-driver-smb#947
// bug: orphansend
func WaitUntilTimeout[T any](timeout time.Duration, fn func() (T, error)) (T, error) {
	ch := make(chan result[T])
	go func() {
		v, err := fn()
		ch <- result[T]{v, err}
	}()
	select {
	case r := <-ch:
		return r.val, r.err
	case <-time.After(timeout):
		var zero T
		return zero, fmt.Errorf("timed out after %s", timeout)
	}
}

// RunWithTimeout is the near-miss of WaitUntilTimeout: the result channel
// is buffered for its single send, so the goroutine can always finish.
// From: kubernetes-csi/csi-driver-smb#947
// ok: orphansend
func RunWithTimeout[T any](timeout time.Duration, fn func() (T, error)) (T, error) {
	ch := make(chan result[T], 1)
	go func() {
		v, err := fn()
		ch <- result[T]{v, err}
	}()
	select {
	case r := <-ch:
		return r.val, r.err
	case <-time.After(timeout):
		var zero T
		return zero, fmt.Errorf("timed out after %s", timeout)
	}
}
