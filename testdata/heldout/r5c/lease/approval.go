package lease

import (
	"context"
	"fmt"
	"sync"

	"heldoutr5c/internal/store"
)

type approval struct {
	approved bool
}

// ApprovalStore tracks multi-party approvals; changed is closed and replaced
// on every update.
type ApprovalStore struct {
	mu      sync.Mutex
	pending map[string]*approval
	changed chan struct{}
}

// NewApprovalStore returns an empty store.
// ok: leaseleak
func NewApprovalStore() *ApprovalStore {
	return &ApprovalStore{pending: make(map[string]*approval), changed: make(chan struct{})}
}

// Approve marks id approved and wakes waiters.
// ok: leaseleak
func (s *ApprovalStore) Approve(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.pending[id]; ok {
		a.approved = true
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitForApproval blocks until id is approved. The mutex is locked at the
// top of each iteration and unlocked by hand; the not-found branch returns
// while still holding it, so every later caller deadlocks.
// From: Snowflake-Labs/sansshell#514
// bug: leaseleak
func (s *ApprovalStore) WaitForApproval(ctx context.Context, id string) error {
	for {
		s.mu.Lock()
		a, ok := s.pending[id]
		if !ok {
			return fmt.Errorf("approval %s: %w", id, store.ErrNotFound)
		}
		if a.approved {
			s.mu.Unlock()
			return nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// AwaitApproval is the near-miss of WaitForApproval: the not-found branch
// unlocks before returning, like the other two exits.
// From: Snowflake-Labs/sansshell#514
// ok: leaseleak
func (s *ApprovalStore) AwaitApproval(ctx context.Context, id string) error {
	for {
		s.mu.Lock()
		a, ok := s.pending[id]
		if !ok {
			s.mu.Unlock()
			return fmt.Errorf("approval %s: %w", id, store.ErrNotFound)
		}
		if a.approved {
			s.mu.Unlock()
			return nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
