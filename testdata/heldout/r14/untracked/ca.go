package untracked

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// RootRotator rotates the cluster root CA.
type RootRotator interface {
	Reconcile(ctx context.Context) error
}

// CAServer issues node certificates.
type CAServer struct {
	rotator RootRotator
	log     *slog.Logger
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// run reconciles the root CA every minute until ctx ends.
//
// ok: untrackedgo
func (s *CAServer) run(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if err := s.rotator.Reconcile(ctx); err != nil {
			s.log.Warn("root rotation reconcile failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Start launches the reconcile loop; Stop cancels it.
//
// From: moby/swarmkit#1854
// bug: untrackedgo
func (s *CAServer) Start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	go s.run(ctx)
}

// Stop cancels the reconcile loop.
//
// ok: untrackedgo
func (s *CAServer) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
}

// StartNearMiss counts the loop in the WaitGroup that StopNearMiss waits
// on, so Stop does not return while run is still working.
//
// ok: untrackedgo
func (s *CAServer) StartNearMiss(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.run(ctx)
	}()
}

// StopNearMiss cancels the loop and waits for run to return.
//
// ok: untrackedgo
func (s *CAServer) StopNearMiss() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}
