package afterfunc

import (
	"context"
	"errors"
	"fmt"
	"time"
)

var errNotEnoughTime = errors.New("not enough time left")

// admit refuses work its deadline cannot fit with an error callers cannot
// tell from a failure.
func admit(ctx context.Context, need time.Duration, fn func(context.Context) error) error {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < need {
		return errNotEnoughTime // want `this branch gives up because ctx's deadline leaves too little time and returns errNotEnoughTime, which is not context.DeadlineExceeded`
	}
	return fn(ctx)
}

// admitWrapped keeps the timeout's identity.
func admitWrapped(ctx context.Context, need time.Duration, fn func(context.Context) error) error {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < need {
		return fmt.Errorf("%w: need %v", context.DeadlineExceeded, need)
	}
	return fn(ctx)
}

// needsDeadline refuses a context without one: no prediction.
func needsDeadline(ctx context.Context, fn func(context.Context) error) error {
	if _, ok := ctx.Deadline(); !ok {
		return errors.New("a deadline is required")
	}
	return fn(ctx)
}
