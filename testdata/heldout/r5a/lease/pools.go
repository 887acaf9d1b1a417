package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"heldoutr5a/internal/pool"
)

// OrderStore opens order transactions on a user-level connection pool.
type OrderStore struct {
	pool *pool.Pool
}

// BeginOrderTx acquires a connection and begins on it. When Begin fails the connection is neither
// released nor handed to a Tx, so every failed begin permanently shrinks the pool.
// From: jackc/pgx#712
// bug: leaseleak
func (s *OrderStore) BeginOrderTx(ctx context.Context) (*pool.Tx, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin order tx: %w", err)
	}
	return tx, nil
}

// BeginOrderTxReleasing releases the connection when Begin fails; on success the Tx owns it and
// releases it on Commit or Rollback.
// ok: leaseleak
func (s *OrderStore) BeginOrderTxReleasing(ctx context.Context) (*pool.Tx, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Release()
		return nil, fmt.Errorf("begin order tx: %w", err)
	}
	return tx, nil
}

// ErrAlreadyAttached is returned when a session already holds a connection.
var ErrAlreadyAttached = errors.New("session already attached")

// SessionManager pins one pooled connection per session in a map until Detach.
type SessionManager struct {
	pool  *pool.Pool
	mu    sync.Mutex
	conns map[string]*pool.Conn
}

// Attach leases a connection and stores it in the session map. If the session is already attached
// it returns ErrAlreadyAttached with the freshly acquired connection neither stored nor released.
// From: apache/pulsar-client-go#165
// bug: leaseleak
func (m *SessionManager) Attach(ctx context.Context, sessionID string) error {
	conn, err := m.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	if err := conn.Exec(ctx, "SET application_name = $1", sessionID); err != nil {
		conn.Release()
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.conns[sessionID]; exists {
		return ErrAlreadyAttached
	}
	m.conns[sessionID] = conn
	return nil
}

// AttachReleasing gives the new connection back when the session is already attached.
// ok: leaseleak
func (m *SessionManager) AttachReleasing(ctx context.Context, sessionID string) error {
	conn, err := m.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	if err := conn.Exec(ctx, "SET application_name = $1", sessionID); err != nil {
		conn.Release()
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, exists := m.conns[sessionID]; exists {
		conn.Release()
		return ErrAlreadyAttached
	}
	m.conns[sessionID] = conn
	return nil
}

// Detach removes the session's connection from the map and releases it.
// ok: leaseleak
func (m *SessionManager) Detach(sessionID string) {
	m.mu.Lock()
	conn, ok := m.conns[sessionID]
	delete(m.conns, sessionID)
	m.mu.Unlock()
	if ok {
		conn.Release()
	}
}
