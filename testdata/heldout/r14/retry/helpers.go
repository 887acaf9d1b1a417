// Package retry holds retry, poll and reconnect loops and the question of
// whether they stop once their context is done.
package retry

import (
	"context"
	"time"
)

// sleepCtx waits for d or until ctx is done, whichever comes first.
//
// ok: retrycancel
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
