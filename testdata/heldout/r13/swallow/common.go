// Package swallow holds held-out cases for the swallowcancel check.
package swallow

import (
	"context"
	"errors"
	"time"
)

var errBudgetExhausted = errors.New("retry budget exhausted")

// sleepCtx waits for d or until ctx ends.
// ok: swallowcancel
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
