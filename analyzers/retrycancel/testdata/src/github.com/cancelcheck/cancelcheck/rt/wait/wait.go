// Package wait is a stub of github.com/cancelcheck/cancelcheck/rt/wait.
package wait

import (
	"context"
	"time"
)

func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
