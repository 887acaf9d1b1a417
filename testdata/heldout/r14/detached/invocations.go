package detached

import (
	"context"
	"database/sql"
	"time"
)

// Invocation is a stored build invocation.
type Invocation struct {
	ID        string
	CreatedAt int64
}

// InvocationDB reads invocations.
type InvocationDB struct {
	db *sql.DB
}

// scanInvocations reads all rows.
//
// ok: detachedctx
func scanInvocations(rows *sql.Rows) ([]Invocation, error) {
	defer rows.Close()
	var out []Invocation
	for rows.Next() {
		var inv Invocation
		if err := rows.Scan(&inv.ID, &inv.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// LookupExpiredInvocations returns up to limit invocations older than cutoff
// for the cleanup job.
//
// From: buildbuddy-io/buildbuddy#1606
// bug: detachedctx
func (d *InvocationDB) LookupExpiredInvocations(ctx context.Context, cutoff time.Time, limit int) ([]Invocation, error) {
	rows, err := d.db.Query(`SELECT invocation_id, created_at_usec FROM Invocations
		WHERE created_at_usec < ? LIMIT ?`, cutoff.UnixMicro(), limit)
	if err != nil {
		return nil, err
	}
	return scanInvocations(rows)
}

// LookupExpiredInvocationsNearMiss queries with ctx.
//
// ok: detachedctx
func (d *InvocationDB) LookupExpiredInvocationsNearMiss(ctx context.Context, cutoff time.Time, limit int) ([]Invocation, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT invocation_id, created_at_usec FROM Invocations
		WHERE created_at_usec < ? LIMIT ?`, cutoff.UnixMicro(), limit)
	if err != nil {
		return nil, err
	}
	return scanInvocations(rows)
}
