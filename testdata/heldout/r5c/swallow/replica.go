// Package swallow holds examples of swallowed cancellation: an error that can
// carry context.Canceled is dropped, turned into nil, or logged and skipped.
package swallow

import (
	"context"
	"fmt"
	"time"
)

// Follower reports how far a replica has applied the replicated log.
type Follower interface {
	AppliedIndex(ctx context.Context) (uint64, error)
}

// Replicator waits for followers before acknowledging writes.
type Replicator struct {
	follower  Follower
	pollEvery time.Duration
}

// NewReplicator returns a replicator polling f every poll.
// ok: swallowcancel
func NewReplicator(f Follower, poll time.Duration) *Replicator {
	return &Replicator{follower: f, pollEvery: poll}
}

// WaitForFollower blocks until the follower has applied idx. When ctx ends
// during the wait between polls it returns the local err, which is always nil
// at that point, so the commit path acknowledges a write that was never
// replicated.
// From: codenotary/immudb#2039
// bug: swallowcancel
func (r *Replicator) WaitForFollower(ctx context.Context, idx uint64) error {
	for {
		applied, err := r.follower.AppliedIndex(ctx)
		if err != nil {
			return fmt.Errorf("follower index: %w", err)
		}
		if applied >= idx {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(r.pollEvery):
		}
	}
}

// WaitApplied is the near-miss of WaitForFollower: when the wait between polls
// is cut short it returns ctx.Err(), so the caller sees the cancellation and
// does not acknowledge the write.
// From: codenotary/immudb#2039
// ok: swallowcancel
func (r *Replicator) WaitApplied(ctx context.Context, idx uint64) error {
	for {
		applied, err := r.follower.AppliedIndex(ctx)
		if err != nil {
			return fmt.Errorf("follower index: %w", err)
		}
		if applied >= idx {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(r.pollEvery):
		}
	}
}
