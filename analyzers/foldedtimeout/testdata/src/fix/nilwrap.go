package fix

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"
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

var errBudget = errors.New("budget exceeded")

// guarded reports any end of the budget context as a timeout sentinel,
// wrapped with %w but without the context's error (vearne/gin-timeout#23).
func guarded(ctx context.Context, call func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := call(cctx)
	if cctx.Err() != nil {
		return fmt.Errorf("%w after 1s", errBudget) // want `fmt.Errorf\("%w after 1s", errBudget\) replaces cctx's end with a new error that wraps only errBudget, so callers cannot tell`
	}
	return err
}

// Near-miss: the sentinel is wrapped beside the context's error.
func guardedCause(ctx context.Context, call func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := call(cctx)
	if cerr := cctx.Err(); cerr != nil {
		return fmt.Errorf("%w after 1s: %w", errBudget, cerr)
	}
	return err
}
