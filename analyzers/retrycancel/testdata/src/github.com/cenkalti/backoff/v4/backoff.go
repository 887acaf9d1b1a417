// Package backoff is a stub of github.com/cenkalti/backoff/v4 with the real
// signatures of the functions retrycancel knows.
package backoff

import (
	"context"
	"time"
)

type BackOff interface {
	NextBackOff() time.Duration
	Reset()
}

type BackOffContext interface {
	BackOff
	Context() context.Context
}

type ExponentialBackOff struct{}

func (*ExponentialBackOff) NextBackOff() time.Duration { return 0 }
func (*ExponentialBackOff) Reset()                     {}

type ExponentialBackOffOpts func(*ExponentialBackOff)

func NewExponentialBackOff(opts ...ExponentialBackOffOpts) *ExponentialBackOff {
	return &ExponentialBackOff{}
}

func WithContext(b BackOff, ctx context.Context) BackOffContext { return nil }

type Operation func() error

type Notify func(error, time.Duration)

func Retry(o Operation, b BackOff) error { return nil }

func RetryNotify(operation Operation, b BackOff, notify Notify) error { return nil }
