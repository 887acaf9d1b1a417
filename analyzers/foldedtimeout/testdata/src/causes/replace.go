package causes

import (
	"context"
	"errors"
	"fmt"
)

type deployment struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func start(parent context.Context) *deployment {
	ctx, cancel := context.WithCancelCause(parent)
	return &deployment{ctx: ctx, cancel: cancel}
}

// replace stops d with a cause that does not wrap Canceled, though
// exitReason asks whether the cause is a cancellation.
func replace(d *deployment, next string) {
	d.cancel(errors.New("replaced by " + next)) // want `d.cancel cancels with a cause that does not wrap context.Canceled`
}

// Near miss: the cause wraps Canceled.
func stop(d *deployment, reason string) {
	d.cancel(fmt.Errorf("stopped: %s: %w", reason, context.Canceled))
}

func exitReason(d *deployment) string {
	cause := context.Cause(d.ctx)
	switch {
	case cause == nil:
		return "running"
	case errors.Is(cause, context.Canceled):
		return "stopped"
	}
	return "failed"
}
