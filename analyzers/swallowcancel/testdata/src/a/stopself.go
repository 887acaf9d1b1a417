package a

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"
)

type stopWatcher struct {
	cancel context.CancelFunc
	done   chan error
}

// Stop cancels the loop itself before it waits for its result: the
// Canceled it filters is its own stop.
func (w *stopWatcher) Stop() error {
	w.cancel()
	err := <-w.done
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Result waits without stopping anything: a Canceled from the loop is
// the parent's, and the caller is told the loop finished.
func (w *stopWatcher) Result() error {
	err := <-w.done
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error, so Result reports success for work that was canceled`
		return nil
	}
	return err
}

// StopSome cancels on one path only: on the other the Canceled is not
// its own.
func (w *stopWatcher) StopSome(force bool) error {
	if force {
		w.cancel()
	}
	err := <-w.done
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error`
		return nil
	}
	return err
}

type stopServer struct {
	cancel context.CancelCauseFunc
	group  *errgroup.Group
}

// Shutdown stops the group's context and waits for its goroutines.
func (s *stopServer) Shutdown() error {
	s.cancel(errors.New("shutdown"))
	if err := s.group.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// Drain stops its workers, then runs a call on the caller's context,
// whose Canceled is the caller's, not the stop's.
func (w *stopWatcher) Drain(ctx context.Context, flush func(context.Context) error) error {
	w.cancel()
	err := flush(ctx)
	if errors.Is(err, context.Canceled) { // want `when err is a cancellation this branch returns a nil error`
		return nil
	}
	return err
}
