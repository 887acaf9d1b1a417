package orphan

import (
	"context"
	"fmt"
	"log"
	"sync"
)

// Round is one proof-of-elapsed-time round.
type Round struct {
	ID      int
	Execute func(ctx context.Context) error
}

// Service runs rounds and logs their failures from a reporting loop.
type Service struct {
	wg      sync.WaitGroup
	errChan chan error
	log     *log.Logger
}

// NewService returns a service with an unbuffered error channel.
// ok: orphansend
func NewService(logger *log.Logger) *Service {
	return &Service{errChan: make(chan error), log: logger}
}

// Report logs round failures until ctx is done.
// ok: orphansend
func (s *Service) Report(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-s.errChan:
			s.log.Printf("round failed: %v", err)
		}
	}
}

// StartRound executes r in the background and reports a failure on
// s.errChan. Report stops reading when ctx ends, which is exactly when the
// round fails with context.Canceled, so the send blocks forever, and so does
// Shutdown's wg.Wait.
// From: spacemeshos/poet#140
// bug: orphansend
func (s *Service) StartRound(ctx context.Context, r *Round) {
	s.wg.Go(func() {
		if err := r.Execute(ctx); err != nil {
			s.errChan <- fmt.Errorf("round %d: %w", r.ID, err)
		}
	})
}

// StartRoundReported is the near-miss of StartRound: the failure is offered
// without blocking, and when no reporter is receiving it is logged here
// instead.
// From: spacemeshos/poet#140
// ok: orphansend
func (s *Service) StartRoundReported(ctx context.Context, r *Round) {
	s.wg.Go(func() {
		if err := r.Execute(ctx); err != nil {
			err = fmt.Errorf("round %d: %w", r.ID, err)
			select {
			case s.errChan <- err:
			default:
				s.log.Printf("round failed (no reporter): %v", err)
			}
		}
	})
}

// Shutdown waits for every round goroutine.
// ok: orphansend
func (s *Service) Shutdown() {
	s.wg.Wait()
}
