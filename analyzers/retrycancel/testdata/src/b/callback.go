package b

import (
	"context"
	"time"

	"helpers"
)

func height(ctx context.Context) (int64, error) { return 0, ctx.Err() }

// latestHeight retries under the caller's context with a helper that cannot
// stop: after ctx ends every attempt fails at once, and it still sleeps.
func latestHeight(ctx context.Context) (int64, error) {
	var h int64
	err := helpers.RetryDo(5, time.Second, func() error { // want `helpers.RetryDo retries its callback and waits between attempts, but takes no context: once ctx is canceled each attempt fails at once and helpers.RetryDo keeps calling and sleeping until its attempts run out`
		var err error
		h, err = height(ctx)
		return err
	})
	return h, err
}

// latestHeightOnce makes one attempt.
func latestHeightOnce(ctx context.Context) (int64, error) {
	var h int64
	err := helpers.Attempt(func() error {
		var err error
		h, err = height(ctx)
		return err
	})
	return h, err
}

// retryLocal is a local retry helper.
func retryLocal(n int, fn func() error) error {
	var err error
	for range n {
		if err = fn(); err == nil {
			return nil
		}
		<-time.After(time.Millisecond)
	}
	return err
}

func warm(ctx context.Context) error {
	return retryLocal(3, func() error { return ctx.Err() }) // want `retryLocal retries its callback`
}

// warmDetached gives the helper a callback that does not run under ctx.
func warmDetached(ctx context.Context) error {
	_ = ctx
	return retryLocal(3, func() error { return nil })
}
