package swallow

import (
	"context"
	"fmt"
	"time"
)

// RetryConfig bounds a retried provisioning step.
type RetryConfig struct {
	Tries int
	Delay time.Duration
}

// Retry runs fn until it succeeds or the tries run out. When every try
// fails it returns the zero value and a nil error, dropping the last
// failure (often a per-try deadline).
// From: hashicorp/packer#7554
// bug: swallowcancel
func Retry[T any](ctx context.Context, cfg RetryConfig, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	for try := 1; try <= cfg.Tries; try++ {
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		if try == cfg.Tries {
			break
		}
		if err := sleepCtx(ctx, cfg.Delay); err != nil {
			return zero, err
		}
	}
	return zero, nil
}

// RetryNearMiss keeps the last error and wraps it when giving up.
// ok: swallowcancel
func RetryNearMiss[T any](ctx context.Context, cfg RetryConfig, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	lastErr := errBudgetExhausted
	for try := 1; try <= cfg.Tries; try++ {
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		lastErr = err
		if try == cfg.Tries {
			break
		}
		if err := sleepCtx(ctx, cfg.Delay); err != nil {
			return zero, err
		}
	}
	return zero, fmt.Errorf("giving up after %d tries: %w", cfg.Tries, lastErr)
}
