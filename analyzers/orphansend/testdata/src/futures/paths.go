package futures

import "context"

type selector struct{}

func (s *selector) wait(ctx context.Context) ([]int, error) { return nil, ctx.Err() }
func (s *selector) after(ctx context.Context, n []int) error  { return ctx.Err() }

// One result on each path: a failure or the outcome.
func (s *selector) run(ctx context.Context) chan error {
	ch := make(chan error)
	go func() {
		nodes, err := s.wait(ctx)
		if err != nil {
			ch <- err // want `the send on ch blocks forever once the caller of run stops waiting for the unbuffered channel it returns`
			return
		}
		ch <- s.after(ctx, nodes)
	}()
	return ch
}

// Do stops waiting when ctx ends.
func (s *selector) Do(ctx context.Context) error {
	select {
	case err := <-s.run(ctx):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Near miss: a slot for the one result.
func (s *selector) runBuffered(ctx context.Context) chan error {
	ch := make(chan error, 1)
	go func() {
		nodes, err := s.wait(ctx)
		if err != nil {
			ch <- err
			return
		}
		ch <- s.after(ctx, nodes)
	}()
	return ch
}

// Near miss: a progress report and then the result on one path is a
// stream, not a one-shot future.
func (s *selector) runTwice(ctx context.Context) chan error {
	ch := make(chan error)
	go func() {
		ch <- nil
		ch <- s.after(ctx, nil)
	}()
	return ch
}
