package causes

import (
	"context"
	"errors"
	"fmt"
)

var errAborted = fmt.Errorf("aborted: %w", context.Canceled)

type solver struct {
	jobs map[string]context.CancelCauseFunc
}

func (s *solver) abort(id string) {
	if cancel, ok := s.jobs[id]; ok {
		cancel(errAborted)
	}
}

// The cause set by abort wraps context.Canceled: == misses it.
func isCanceled(ctx context.Context, err error) bool {
	if errors.Is(err, context.Canceled) {
		return true
	}
	return ctx.Err() != nil && context.Cause(ctx) == context.Canceled // want `context.Cause\(ctx\) == context.Canceled misses a cause that wraps it: this package gives cancellations causes of its own \(cancel\(errAborted\)\)`
}

func isCanceledOK(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(context.Cause(ctx), context.Canceled)
}
