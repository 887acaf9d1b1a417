package retry

import (
	"context"

	"github.com/cenkalti/backoff/v4"
)

// Retry through a library whose policy never sees the context.
//
// bug: retrycancel
func (a *Agent) RegisterBackoff(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		return a.reg.Register(ctx, name, a.addr)
	}, backoff.NewExponentialBackOff())
}

// ok: retrycancel
func (a *Agent) RegisterBackoffOK(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		return a.reg.Register(ctx, name, a.addr)
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}
