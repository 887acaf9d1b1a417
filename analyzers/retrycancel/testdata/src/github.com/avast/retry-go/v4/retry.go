// Package retry is a stub of github.com/avast/retry-go/v4.
package retry

import (
	"context"
	"time"
)

type RetryableFunc func() error

type RetryableFuncWithData[T any] func() (T, error)

type Config struct{}

type Option func(*Config)

func Do(retryableFunc RetryableFunc, opts ...Option) error { return nil }

func DoWithData[T any](retryableFunc RetryableFuncWithData[T], opts ...Option) (T, error) {
	var t T
	return t, nil
}

func Context(ctx context.Context) Option { return nil }

func Attempts(attempts uint) Option { return nil }

func Delay(delay time.Duration) Option { return nil }
