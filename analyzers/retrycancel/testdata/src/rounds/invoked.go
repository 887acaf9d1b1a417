package rounds

import (
	"context"
	"errors"
	"time"
)

var errRestarting = errors.New("restarting")

type supervisor struct{ slots chan struct{} }

func (s *supervisor) acquire(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case s.slots <- struct{}{}:
		return nil
	}
}

func (s *supervisor) task(ctx context.Context) error { return ctx.Err() }

// Each round runs in a literal called where it is written; its acquire
// returns ctx's error once ctx has ended, and the loop returns every error
// but errRestarting.
func (s *supervisor) run(ctx context.Context) error {
	for {
		err := func() error {
			if err := s.acquire(ctx); err != nil {
				return err
			}
			defer func() { <-s.slots }()
			return s.task(ctx)
		}()
		if errors.Is(err, errRestarting) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		return err
	}
}

// The literal's error is dropped: the loop tries again on any failure,
// the cancellation of ctx too.
func (s *supervisor) runAll(ctx context.Context) {
	for {
		err := func() error {
			if err := s.acquire(ctx); err != nil {
				return err
			}
			defer func() { <-s.slots }()
			return s.task(ctx)
		}()
		if err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond) // want `time.Sleep ignores ctx`
	}
}
