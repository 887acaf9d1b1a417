package swallow

import (
	"context"
	"errors"
	"log"
	"os/exec"
)

type Step interface {
	Name() string
	Run(ctx context.Context) error
}

// Modelled on a pipeline runner that reported success when its context
// was canceled between steps.
//
// bug: swallowcancel
func RunPipeline(ctx context.Context, steps []Step) error {
	for _, s := range steps {
		select {
		case <-ctx.Done():
			log.Printf("pipeline canceled before %s", s.Name())
			return nil
		default:
		}
		if err := s.Run(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Modelled on a helper that turned any error into success once the
// context was canceled.
//
// bug: swallowcancel
func succeedWhenCanceled(ctx context.Context, step Step) error {
	err := step.Run(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// A worker that reports how many jobs ran; canceled jobs are counted out
// silently and the batch ends "successfully".
//
// bug: swallowcancel
func RunJobs(ctx context.Context, steps []Step) (ran int, err error) {
	for _, s := range steps {
		if err := s.Run(ctx); err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				continue
			}
			return ran, err
		}
		ran++
	}
	return ran, nil
}

// A subprocess killed by the context looks like a clean exit.
//
// bug: swallowcancel
func Lint(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "golint", dir)
	if err := cmd.Run(); err != nil {
		log.Printf("lint %s: %v", dir, err)
		return nil
	}
	return nil
}

// ok: swallowcancel
func RunPipelineOK(ctx context.Context, steps []Step) error {
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.Run(ctx); err != nil {
			return err
		}
	}
	return nil
}

// The subprocess error is deliberately ignored only when the caller asked
// to stop; other failures surface.
//
// ok: swallowcancel
func Search(ctx context.Context, dir string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, "grep", "-r", "TODO", dir).Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return out, nil
}

// RunForever runs steps until the context is canceled.
//
// ok: swallowcancel
func RunForever(ctx context.Context, s Step) error {
	for {
		if err := s.Run(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		default:
		}
	}
}

// ok: swallowcancel
func RunJobsOK(ctx context.Context, steps []Step) (ran int, err error) {
	for _, s := range steps {
		if err := s.Run(ctx); err != nil {
			return ran, err
		}
		ran++
	}
	return ran, nil
}
