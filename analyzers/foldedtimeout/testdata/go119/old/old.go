// Package old is compiled as Go 1.19: fmt.Errorf takes one %w only.
package old

import (
	"context"
	"errors"
	"fmt"
)

var ErrTimeout = errors.New("timed out")

func put(ctx context.Context) error { return ctx.Err() }

func mixed(ctx context.Context, base error) error {
	err := put(ctx)
	return fmt.Errorf("%w: %v", base, err) // want `formats err with %v.*a second %w, which takes Go 1.20`
}

func single(ctx context.Context) error {
	err := put(ctx)
	return fmt.Errorf("put: %v", err) // want `formats err with %v`
}

func timeout(ctx context.Context, ch <-chan int) error {
	select {
	case <-ctx.Done():
		return ErrTimeout // want `as a timeout`
	case <-ch:
		return nil
	}
}
