// Package steps models a step runner that compared a wrapped error with
// == and so treated cancellation as a failure (the shape of real CI bugs:
// "check in the step execution error if the context is cancelled").
package steps

import (
	"context"
	"fmt"
)

type Step interface {
	Run(ctx context.Context) error
}

type result struct {
	name string
	err  error
}

func run(ctx context.Context, s Step, name string) result {
	if err := s.Run(ctx); err != nil {
		return result{name, fmt.Errorf("step %s: %w", name, err)}
	}
	return result{name: name}
}

func RunAll(ctx context.Context, steps map[string]Step) (failed []string) {
	for name, s := range steps {
		out := run(ctx, s, name)
		if out.err != nil && out.err.Error() != context.Canceled.Error() { // want `matching the text of out.err against context.Canceled's message`
			failed = append(failed, out.name)
		}
	}
	return failed
}

func Wait(ctx context.Context, s Step) (string, error) {
	err := s.Run(ctx)
	switch err { // want `switch on err compares it with == against context.Canceled`
	case nil:
		return "passed", nil
	case context.Canceled:
		return "aborted", nil
	default:
		return "failed", err
	}
}
