package lease

import (
	"context"
	"errors"
	"sync"
)

// ErrUnexpectedState is returned for an ASP message that is invalid in the current state.
var ErrUnexpectedState = errors.New("m3ua: unexpected message for current state")

type aspState int

const (
	stateDown aspState = iota
	stateInactive
	stateActive
)

// Message is one M3UA management message.
type Message struct {
	Type int
}

const (
	typeASPUp = iota + 1
	typeASPActive
	typeASPDown
)

// Conn is one SCTP association's state machine.
type Conn struct {
	mu    sync.Mutex
	state aspState
}

// handleSignal locks the state machine and, on the unexpected-state branch, returns with the lock
// still held: the next message handler on this association deadlocks.
// From: wmnsk/go-m3ua#11
// bug: leaseleak
func (c *Conn) handleSignal(msg *Message) error {
	c.mu.Lock()
	switch msg.Type {
	case typeASPUp:
		if c.state != stateDown {
			return ErrUnexpectedState
		}
		c.state = stateInactive
	case typeASPActive:
		c.state = stateActive
	case typeASPDown:
		c.state = stateDown
	}
	c.mu.Unlock()
	return nil
}

// handleSignalUnlocking unlocks before the early return, keeping the explicit unlock style.
// ok: leaseleak
func (c *Conn) handleSignalUnlocking(msg *Message) error {
	c.mu.Lock()
	switch msg.Type {
	case typeASPUp:
		if c.state != stateDown {
			c.mu.Unlock()
			return ErrUnexpectedState
		}
		c.state = stateInactive
	case typeASPActive:
		c.state = stateActive
	case typeASPDown:
		c.state = stateDown
	}
	c.mu.Unlock()
	return nil
}

// ErrNotFound is returned for an unknown approval request.
var ErrNotFound = errors.New("approval request not found")

// approvalRequest is one pending multi-party approval.
type approvalRequest struct {
	approved bool
	changed  chan struct{}
}

// ApprovalTracker tracks pending approvals.
type ApprovalTracker struct {
	mu      sync.Mutex
	pending map[string]*approvalRequest
}

// WaitForApproval re-locks on every iteration of its wait loop, so the lock cannot be deferred. The
// not-found branch returns without unlocking, and every later caller blocks on the tracker.
// From: Snowflake-Labs/sansshell#514
// bug: leaseleak
func (m *ApprovalTracker) WaitForApproval(ctx context.Context, id string) error {
	for {
		m.mu.Lock()
		req, ok := m.pending[id]
		if !ok {
			return ErrNotFound
		}
		if req.approved {
			m.mu.Unlock()
			return nil
		}
		changed := req.changed
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// WaitForApprovalUnlocking unlocks on the not-found branch too.
// ok: leaseleak
func (m *ApprovalTracker) WaitForApprovalUnlocking(ctx context.Context, id string) error {
	for {
		m.mu.Lock()
		req, ok := m.pending[id]
		if !ok {
			m.mu.Unlock()
			return ErrNotFound
		}
		if req.approved {
			m.mu.Unlock()
			return nil
		}
		changed := req.changed
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}
