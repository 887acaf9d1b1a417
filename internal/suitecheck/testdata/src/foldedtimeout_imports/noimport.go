// The fix needs fmt, which this file does not import yet; another file of
// the package does, which must not matter.
package foldedtimeout_imports

import (
	"context"
	"errors"
)

var ErrStopped = errors.New("stopped")

func drain(ctx context.Context, ch <-chan int) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, errors.New("drain aborted") // want `replaces ctx's end with a new error`
		case _, ok := <-ch:
			if !ok {
				return n, nil
			}
			n++
		}
	}
}
