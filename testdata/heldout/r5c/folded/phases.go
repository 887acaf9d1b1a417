package folded

import (
	"context"
	"errors"
	"fmt"
)

// Code classifies step failures for the operator and the retry policy.
type Code int

const (
	CodeInternal Code = iota
	CodeTimeout
	CodeCanceled
)

// StepError is a classified failure of one bundling phase.
type StepError struct {
	Code Code
	Step string
	Err  error
}

// Error formats the failure.
// ok: foldedtimeout
func (e *StepError) Error() string {
	return fmt.Sprintf("phase %s (code %d): %v", e.Step, e.Code, e.Err)
}

// Unwrap exposes the cause.
// ok: foldedtimeout
func (e *StepError) Unwrap() error { return e.Err }

// Retryable reports whether the orchestrator should retry the bundle.
// ok: foldedtimeout
func (e *StepError) Retryable() bool { return e.Code == CodeTimeout }

// Phase is one bundling step.
type Phase struct {
	Name string
	Run  func(ctx context.Context) error
}

// RunPhases runs each phase in order. When the context is dead between phases
// it always reports CodeTimeout, so an operator's Ctrl-C (context.Canceled) is
// shown as a timeout and classified as retryable.
// From: NVIDIA/aicr#2850
// bug: foldedtimeout
func RunPhases(ctx context.Context, phases []Phase) error {
	for _, ph := range phases {
		if err := ctx.Err(); err != nil {
			return &StepError{Code: CodeTimeout, Step: ph.Name, Err: err}
		}
		if err := ph.Run(ctx); err != nil {
			return fmt.Errorf("phase %s: %w", ph.Name, err)
		}
	}
	return nil
}

// RunValidators is the near-miss of RunPhases: the code follows the context
// error, CodeTimeout only for an expired deadline and CodeCanceled otherwise.
// From: NVIDIA/aicr#2850
// ok: foldedtimeout
func RunValidators(ctx context.Context, phases []Phase) error {
	for _, ph := range phases {
		if err := ctx.Err(); err != nil {
			code := CodeCanceled
			if errors.Is(err, context.DeadlineExceeded) {
				code = CodeTimeout
			}
			return &StepError{Code: code, Step: ph.Name, Err: err}
		}
		if err := ph.Run(ctx); err != nil {
			return fmt.Errorf("phase %s: %w", ph.Name, err)
		}
	}
	return nil
}
