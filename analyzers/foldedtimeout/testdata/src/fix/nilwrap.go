package fix

import (
	"context"
	"fmt"
	"log"
)

type step interface {
	Run(ctx context.Context) error
}

// runSteps wraps err in its Done arm, but every round that reaches the arm
// has seen err == nil: the error wraps nothing (evergreen-ci/evergreen#1986).
func runSteps(ctx context.Context, steps []step) error {
	var err error
	for _, st := range steps {
		select {
		case <-ctx.Done():
			return fmt.Errorf("steps canceled: %w", err) // want `fmt.Errorf\("steps canceled: %w", err\) wraps err, which is always nil here, instead of ctx's end`
		default:
		}
		if err = st.Run(ctx); err != nil {
			return fmt.Errorf("step failed: %w", err)
		}
	}
	return nil
}

// Near-miss: a failed step is logged and the loop goes on, so err may
// hold the last failure when ctx ends; wrapping it keeps that identity.
func runStepsLogged(ctx context.Context, steps []step) error {
	var err error
	for _, st := range steps {
		select {
		case <-ctx.Done():
			return fmt.Errorf("steps canceled after %w", err)
		default:
		}
		if err = st.Run(ctx); err != nil {
			log.Printf("step: %v", err)
		}
	}
	return err
}
