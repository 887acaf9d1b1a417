package libfix

import (
	"context"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
)

func op() error { return nil }

func Backoff(ctx context.Context) error {
	return backoff.Retry(op, backoff.NewExponentialBackOff()) // want `backoff.Retry with a policy not bound to ctx`
}

func Retry(ctx context.Context) error {
	return retry.Do(op, retry.Attempts(3)) // want `retry.Do without retry.Context`
}
