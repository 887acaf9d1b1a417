package detached

import (
	"context"
	"errors"
	"time"
)

// Lease is a held distributed lock.
type Lease struct {
	Name string
	ID   int64
}

// LockClient takes and releases distributed locks.
type LockClient struct {
	acquire func(ctx context.Context, name string) (Lease, error)
	release func(ctx context.Context, l Lease) error
}

// Do holds the lock name while fn runs. The unlock must happen even when ctx
// was canceled (that is the usual reason fn returned), so it runs on
// context.WithoutCancel(ctx), which keeps ctx's values, bounded by its own
// short timeout; the release error is reported.
// ok: detachedctx
func (l *LockClient) Do(ctx context.Context, name string, fn func(context.Context) error) (err error) {
	lease, err := l.acquire(ctx, name)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if rerr := l.release(cctx, lease); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	return fn(ctx)
}
