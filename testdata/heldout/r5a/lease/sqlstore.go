package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Column describes one table column.
type Column struct {
	Table string
	Name  string
	Type  string
}

// Repo reads schema metadata.
type Repo struct {
	db *sql.DB
}

const describeSQL = `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1`

// TableColumns defers rows.Close only after the scan loop, so a Scan error returns from inside the
// loop with the rows (and their pooled connection) still open.
// From: sqls-server/sqls#204
// bug: leaseleak
func (r *Repo) TableColumns(ctx context.Context, schema string) ([]Column, error) {
	rows, err := r.db.QueryContext(ctx, describeSQL, schema)
	if err != nil {
		return nil, err
	}
	var cols []Column
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Table, &c.Name, &c.Type); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	defer rows.Close()
	return cols, rows.Err()
}

// TableColumnsDeferred defers rows.Close directly after the query error check.
// ok: leaseleak
func (r *Repo) TableColumnsDeferred(ctx context.Context, schema string) ([]Column, error) {
	rows, err := r.db.QueryContext(ctx, describeSQL, schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []Column
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Table, &c.Name, &c.Type); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// QueuedMessage is one queued server message.
type QueuedMessage struct {
	ID      string
	Payload []byte
}

// Datastore is a MySQL-backed message store.
type Datastore struct {
	db *sql.DB
}

const pendingSQL = `SELECT id, payload FROM messages WHERE processed = 0 LIMIT ?`

// MessagesForProcessing prepares its statement on the DB (not inside a transaction) and never closes
// it, leaking one server-side prepared statement per call until the server refuses new ones.
// From: google/fleetspeak#286
// bug: leaseleak
func (d *Datastore) MessagesForProcessing(ctx context.Context, limit int) ([]QueuedMessage, error) {
	stmt, err := d.db.PrepareContext(ctx, pendingSQL)
	if err != nil {
		return nil, err
	}
	rows, err := stmt.QueryContext(ctx, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QueuedMessage
	for rows.Next() {
		var m QueuedMessage
		if err := rows.Scan(&m.ID, &m.Payload); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MessagesForProcessingClosed defers stmt.Close after a successful prepare, the upstream fix.
// ok: leaseleak
func (d *Datastore) MessagesForProcessingClosed(ctx context.Context, limit int) ([]QueuedMessage, error) {
	stmt, err := d.db.PrepareContext(ctx, pendingSQL)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	rows, err := stmt.QueryContext(ctx, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QueuedMessage
	for rows.Next() {
		var m QueuedMessage
		if err := rows.Scan(&m.ID, &m.Payload); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MarkProcessed prepares its statement on the transaction and does not close it: statements
// prepared on a Tx are closed by Commit or Rollback, and the deferred Rollback covers every path.
// ok: leaseleak
func (d *Datastore) MarkProcessed(ctx context.Context, ids []string) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE messages SET processed = 1 WHERE id = ?`)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("mark %s: %w", id, err)
		}
	}
	return tx.Commit()
}

// Claim is one claimed queue entry.
type Claim struct {
	ID      int64
	Payload []byte
}

// QueueRepo claims queue entries under a per-session row lock.
type QueueRepo struct {
	db *sql.DB
}

const (
	lockSessionSQL = `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`
	claimSQL       = `UPDATE queue SET claimed = now() WHERE id = (SELECT id FROM queue WHERE session = $1 AND claimed IS NULL LIMIT 1) RETURNING id, payload`
)

// ClaimNext begins a transaction and, when taking the session lock fails, returns without rolling
// back: the connection stays inside an open transaction until the server tears it down.
// From: kdlbs/kandev#2656
// bug: leaseleak
func (r *QueueRepo) ClaimNext(ctx context.Context, session string) (*Claim, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin claim tx: %w", err)
	}
	if _, err := tx.ExecContext(ctx, lockSessionSQL, session); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", session, err)
	}
	var c Claim
	if err := tx.QueryRowContext(ctx, claimSQL, session).Scan(&c.ID, &c.Payload); err != nil {
		return nil, errors.Join(fmt.Errorf("claim: %w", err), tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit claim: %w", err)
	}
	return &c, nil
}

// ClaimNextDeferred defers tx.Rollback right after BeginTx; after a successful Commit the deferred
// Rollback is a no-op returning sql.ErrTxDone.
// ok: leaseleak
func (r *QueueRepo) ClaimNextDeferred(ctx context.Context, session string) (*Claim, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin claim tx: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, lockSessionSQL, session); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", session, err)
	}
	var c Claim
	if err := tx.QueryRowContext(ctx, claimSQL, session).Scan(&c.ID, &c.Payload); err != nil {
		return nil, fmt.Errorf("claim: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit claim: %w", err)
	}
	return &c, nil
}

// Migrator runs migrations under a Postgres advisory lock held on one dedicated connection.
type Migrator struct {
	db     *sql.DB
	lockID int64
}

// withAdvisoryLock takes a dedicated connection and locks it; when the lock statement fails it
// returns before the deferred Close is registered, so the connection is never returned to the pool.
// From: jackc/pgx#712
// bug: leaseleak
func (m *Migrator) withAdvisoryLock(ctx context.Context, fn func(*sql.Conn) error) error {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, m.lockID); err != nil {
		return fmt.Errorf("acquire advisory lock: %w", err)
	}
	defer conn.Close()
	ferr := fn(conn)
	_, uerr := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, m.lockID)
	return errors.Join(ferr, uerr)
}

// withAdvisoryLockClosed registers the Close before the lock statement can fail.
// ok: leaseleak
func (m *Migrator) withAdvisoryLockClosed(ctx context.Context, fn func(*sql.Conn) error) error {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, m.lockID); err != nil {
		return fmt.Errorf("acquire advisory lock: %w", err)
	}
	ferr := fn(conn)
	_, uerr := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, m.lockID)
	return errors.Join(ferr, uerr)
}
