package retry

import (
	"context"
	"log/slog"
	"time"
)

// GitRepo is a mirrored upstream repository.
type GitRepo interface {
	Refresh(ctx context.Context) error
}

// RepoPoller keeps a mirror fresh on a timer or on demand.
type RepoPoller struct {
	repo     GitRepo
	interval time.Duration
	notify   chan struct{}
	log      *slog.Logger
}

// Loop refreshes the repository every interval and whenever notified.
//
// From: fluxcd/flux#1439
// bug: retrycancel
func (p *RepoPoller) Loop(ctx context.Context) {
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			p.log.Info("repo poller stopping")
			break
		case <-ticker.C:
			if err := p.repo.Refresh(ctx); err != nil {
				p.log.Warn("refresh failed", "err", err)
			}
		case <-p.notify:
			if err := p.repo.Refresh(ctx); err != nil {
				p.log.Warn("refresh on notify failed", "err", err)
			}
		}
	}
}

// LoopNearMiss leaves the function from the ctx.Done arm.
//
// ok: retrycancel
func (p *RepoPoller) LoopNearMiss(ctx context.Context) {
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			p.log.Info("repo poller stopping")
			return
		case <-ticker.C:
			if err := p.repo.Refresh(ctx); err != nil {
				p.log.Warn("refresh failed", "err", err)
			}
		case <-p.notify:
			if err := p.repo.Refresh(ctx); err != nil {
				p.log.Warn("refresh on notify failed", "err", err)
			}
		}
	}
}

// PlanSource is polled for new plans.
type PlanSource interface {
	PollOnce(ctx context.Context) error
}

// PollServer polls a source at a fixed interval, possibly minutes.
type PollServer struct {
	source   PlanSource
	interval time.Duration
	log      *slog.Logger
}

// Start polls until ctx is done.
//
// From: flux-iac/tofu-controller#671
// bug: retrycancel
func (s *PollServer) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		default:
		}
		if err := s.source.PollOnce(ctx); err != nil {
			s.log.Error("poll failed", "err", err)
		}
		time.Sleep(s.interval)
	}
}

// StartNearMiss waits for the next poll on a ticker inside the same select
// as ctx.Done.
//
// ok: retrycancel
func (s *PollServer) StartNearMiss(ctx context.Context) error {
	ticker := time.NewTicker(s.interval)
	defer ticker.Stop()
	for {
		if err := s.source.PollOnce(ctx); err != nil {
			s.log.Error("poll failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}
