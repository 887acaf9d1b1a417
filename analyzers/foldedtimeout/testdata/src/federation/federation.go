// Package federation models a per-call timeout helper that reported a
// parent's cancellation as DeadlineExceeded (the shape of a real gRPC
// gateway bug: "in timeout error handling, consider the case where the
// context is canceled").
package federation

import (
	"context"
	"errors"
	"status"
	"time"
)

var ErrCallTimeout = errors.New("call timed out")

func WithTimeout[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := f(ctx)
		ch <- res{v, err}
	}()
	var zero T
	select {
	case <-ctx.Done():
		return zero, status.Error(status.DeadlineExceeded, "timeout") // want `reports ctx's end as a timeout`
	case r := <-ch:
		return r.v, r.err
	}
}

func WithTimeoutFixed[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	ch := make(chan T, 1)
	go func() {
		v, _ := f(ctx)
		ch <- v
	}()
	var zero T
	select {
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, status.Error(status.DeadlineExceeded, "timeout")
		}
		return zero, status.Error(status.Canceled, "canceled")
	case v := <-ch:
		return v, nil
	}
}

func Classify(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return ErrCallTimeout // want `ErrCallTimeout reports the cancellation in err as a timeout`
	}
	return err
}

func ClassifyFixed(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return ErrCallTimeout
	case errors.Is(err, context.Canceled):
		return err
	}
	return err
}
