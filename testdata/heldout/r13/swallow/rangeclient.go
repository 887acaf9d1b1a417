package swallow

import (
	"context"
	"errors"
	"time"
)

// retryStatus tells withBackoff what to do next.
type retryStatus int

const (
	retryContinue retryStatus = iota
	retryBreak
)

// withBackoff calls fn until it asks to stop, returning fn's error.
// ok: swallowcancel
func withBackoff(ctx context.Context, delay time.Duration, fn func(context.Context) (retryStatus, error)) error {
	for {
		status, err := fn(ctx)
		if status == retryBreak {
			return err
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return err
		}
	}
}

var errRangeMoved = errors.New("range moved")

// KV is the range-addressed store.
type KV interface {
	Get(ctx context.Context, key string) ([]byte, error)
}

// RangeClient reads keys, retrying when a range is moving.
type RangeClient struct {
	kv    KV
	delay time.Duration
}

// Get retries only while the range is moving. Any other failure breaks
// out of the retry loop, but the closure breaks with a nil error, so a
// cancelled or timed-out read returns (nil, nil).
// From: cockroachdb/cockroach#1344
// bug: swallowcancel
func (c *RangeClient) Get(ctx context.Context, key string) ([]byte, error) {
	var val []byte
	err := withBackoff(ctx, c.delay, func(ctx context.Context) (retryStatus, error) {
		v, err := c.kv.Get(ctx, key)
		switch {
		case err == nil:
			val = v
			return retryBreak, nil
		case errors.Is(err, errRangeMoved):
			return retryContinue, nil
		default:
			return retryBreak, nil
		}
	})
	return val, err
}

// GetNearMiss breaks out with the failure.
// ok: swallowcancel
func (c *RangeClient) GetNearMiss(ctx context.Context, key string) ([]byte, error) {
	var val []byte
	err := withBackoff(ctx, c.delay, func(ctx context.Context) (retryStatus, error) {
		v, err := c.kv.Get(ctx, key)
		switch {
		case err == nil:
			val = v
			return retryBreak, nil
		case errors.Is(err, errRangeMoved):
			return retryContinue, nil
		default:
			return retryBreak, err
		}
	})
	return val, err
}
