// Package pool is a small user-level connection pool with explicit Acquire/Release, in the style of
// pgxpool: every acquired *Conn must be released exactly once, either directly or by finishing the
// *Tx begun on it.
package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrTxDone is returned when a transaction is used after Commit or Rollback.
var ErrTxDone = errors.New("pool: transaction already finished")

// Pool holds a fixed number of connections.
type Pool struct {
	idle chan *Conn
	mu   sync.Mutex
	out  int
}

// Conn is a leased connection.
type Conn struct {
	p    *Pool
	id   int
	inTx bool
}

// Tx is a transaction on a leased connection; finishing it releases the connection.
type Tx struct {
	conn *Conn
	done bool
}

// New returns a pool of size connections.
// ok: leaseleak
func New(size int) *Pool {
	p := &Pool{idle: make(chan *Conn, size)}
	for i := range size {
		p.idle <- &Conn{p: p, id: i}
	}
	return p
}

// Acquire leases a connection, waiting until one is idle or ctx is done.
// ok: leaseleak
func (p *Pool) Acquire(ctx context.Context) (*Conn, error) {
	select {
	case c := <-p.idle:
		p.mu.Lock()
		p.out++
		p.mu.Unlock()
		return c, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("pool: acquire: %w", ctx.Err())
	}
}

// InUse reports how many connections are currently leased.
// ok: leaseleak
func (p *Pool) InUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out
}

// Release returns the connection to its pool.
// ok: leaseleak
func (c *Conn) Release() {
	c.p.mu.Lock()
	c.p.out--
	c.p.mu.Unlock()
	c.inTx = false
	c.p.idle <- c
}

// Exec runs a statement on the connection.
// ok: leaseleak
func (c *Conn) Exec(ctx context.Context, stmt string, args ...any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("exec %q: %w", stmt, err)
	}
	return nil
}

// Begin starts a transaction. On success the Tx owns the connection and releases it when it is
// committed or rolled back; on failure the caller still owns the connection.
// ok: leaseleak
func (c *Conn) Begin(ctx context.Context) (*Tx, error) {
	if err := c.Exec(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	c.inTx = true
	return &Tx{conn: c}, nil
}

// Exec runs a statement inside the transaction.
// ok: leaseleak
func (t *Tx) Exec(ctx context.Context, stmt string, args ...any) error {
	if t.done {
		return ErrTxDone
	}
	return t.conn.Exec(ctx, stmt, args...)
}

// Commit commits and releases the connection.
// ok: leaseleak
func (t *Tx) Commit(ctx context.Context) error {
	if t.done {
		return ErrTxDone
	}
	t.done = true
	err := t.conn.Exec(ctx, "COMMIT")
	t.conn.Release()
	return err
}

// Rollback rolls back and releases the connection; after Commit it returns ErrTxDone and does nothing.
// ok: leaseleak
func (t *Tx) Rollback(ctx context.Context) error {
	if t.done {
		return ErrTxDone
	}
	t.done = true
	err := t.conn.Exec(ctx, "ROLLBACK")
	t.conn.Release()
	return err
}
