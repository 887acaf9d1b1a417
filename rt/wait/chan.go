package wait

import (
	"context"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

// Recv receives from ch unless ctx ends first.
//
// It returns the value and true when a value was received, the zero value
// and false when ch is closed, and the zero value, false and
// [stop.Err](ctx) when ctx ends first or had already ended. If ch is ready
// at the moment ctx ends, either outcome may happen, as in a select. A nil
// ch blocks until ctx ends.
func Recv[T any](ctx context.Context, ch <-chan T) (T, bool, error) {
	var zero T
	if err := stop.Err(ctx); err != nil {
		return zero, false, err
	}
	select {
	case v, ok := <-ch:
		return v, ok, nil
	case <-ctx.Done():
		return zero, false, stop.Err(ctx)
	}
}

// Send sends v on ch unless ctx ends first, in which case it returns
// [stop.Err](ctx) and v was not sent. Sending on a closed ch panics, as a
// send statement does; a nil ch blocks until ctx ends. The caller keeps
// ownership of ch: Send never closes it.
func Send[T any](ctx context.Context, ch chan<- T, v T) error {
	if err := stop.Err(ctx); err != nil {
		return err
	}
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return stop.Err(ctx)
	}
}
