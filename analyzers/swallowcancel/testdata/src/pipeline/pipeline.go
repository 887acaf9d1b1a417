// Package pipeline models a scheduler that reported success for a run
// whose context was canceled half-way (the shape of a real pipeline bug:
// "fail pipeline when context is cancelled, it was returning success").
package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"sync"
)

type Task struct{ Name string }

type Executor interface {
	Run(ctx context.Context, t Task) error
}

type Pipeline struct {
	exec   Executor
	logger *slog.Logger
}

// Execute runs every task in order and reports the first failure.
func (p *Pipeline) Execute(ctx context.Context, tasks []Task) error {
	for _, t := range tasks {
		err := p.exec.Run(ctx, t)
		if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error, so Execute reports success`
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ExecuteAll runs tasks one by one and logs failures.
func (p *Pipeline) ExecuteAll(ctx context.Context, tasks []Task) error {
	for _, t := range tasks {
		if err := p.exec.Run(ctx, t); err != nil { // want `only logged, so the loop over tasks goes on after cancellation`
			p.logger.Error("task failed", "task", t.Name, "err", err)
		}
	}
	return nil
}

// Consume reads tasks until the channel closes.
func (p *Pipeline) Consume(ctx context.Context, in <-chan Task) error {
	for {
		select {
		case <-ctx.Done():
			return nil // want `Consume returns a nil error when ctx is done`
		case t, ok := <-in:
			if !ok {
				return nil
			}
			if err := p.exec.Run(ctx, t); err != nil {
				return err
			}
		}
	}
}

// Parallel runs tasks at once and returns all failures joined.
func (p *Pipeline) Parallel(ctx context.Context, tasks []Task) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.exec.Run(ctx, t); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ExecuteChecked stops on cancellation and tolerates other failures.
func (p *Pipeline) ExecuteChecked(ctx context.Context, tasks []Task) error {
	for _, t := range tasks {
		if err := p.exec.Run(ctx, t); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.logger.Warn("task failed, continuing", "task", t.Name, "err", err)
		}
	}
	return nil
}

// Run executes the pipeline until ctx is canceled; it returns nil on
// shutdown.
func (p *Pipeline) Run(ctx context.Context, in <-chan Task) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case t := <-in:
			_ = p.ExecuteChecked(ctx, []Task{t})
		}
	}
}
