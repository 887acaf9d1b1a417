package retry

import (
	"context"
	"time"

	"heldoutr5c/internal/store"
)

// rpcRetry retries datastore RPCs.
type rpcRetry struct {
	max  int
	base time.Duration
}

// call runs op and, on failure, waits on a timer and calls itself again. The
// wait reads only the timer channel and nothing checks ctx, so every level of
// the recursion re-issues an RPC the caller has already abandoned.
// From: mercari/datastore#62
// bug: retrycancel
func (r *rpcRetry) call(ctx context.Context, attempt int, op func(context.Context) error) error {
	err := op(ctx)
	if err == nil || attempt >= r.max {
		return err
	}
	t := time.NewTimer(store.Backoff(attempt, r.base, time.Second))
	defer t.Stop()
	<-t.C
	return r.call(ctx, attempt+1, op)
}

// callCtx is the near-miss of call: the wait selects on ctx.Done and returns
// ctx.Err(), so the recursion stops once the caller is gone.
// From: mercari/datastore#62
// ok: retrycancel
func (r *rpcRetry) callCtx(ctx context.Context, attempt int, op func(context.Context) error) error {
	err := op(ctx)
	if err == nil || attempt >= r.max {
		return err
	}
	t := time.NewTimer(store.Backoff(attempt, r.base, time.Second))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	return r.callCtx(ctx, attempt+1, op)
}

// Put writes through the retrying RPC path.
// ok: retrycancel
func (r *rpcRetry) Put(ctx context.Context, db *store.DB, key string, v []byte) error {
	return r.callCtx(ctx, 0, func(ctx context.Context) error {
		_, err := db.Put(ctx, key, v)
		return err
	})
}

// Delete removes through the (buggy) retrying path; the defect is in call.
// ok: retrycancel
func (r *rpcRetry) Delete(ctx context.Context, db *store.DB, key string) error {
	return r.call(ctx, 0, func(ctx context.Context) error {
		return db.Delete(ctx, key)
	})
}
