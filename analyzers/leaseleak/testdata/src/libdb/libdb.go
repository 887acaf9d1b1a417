// Package libdb uses sqlx, pgx and OpenCensus: their leases are built in.
package libdb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"
	"go.opencensus.io/trace"
)

var errEmpty = errors.New("empty")

func names(ctx context.Context, db *sqlx.DB) ([]string, error) {
	rows, err := db.QueryxContext(ctx, "SELECT name FROM t") // want `the rows rows from \(\*sqlx.DB\).QueryxContext are not closed on the path through the return`
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func namesClosed(ctx context.Context, db *sqlx.DB) error {
	rows, err := db.QueryxContext(ctx, "SELECT name FROM t")
	if err != nil {
		return err
	}
	defer rows.Close()
	return nil
}

func prepared(db *sqlx.DB) error {
	st, err := db.PrepareNamed("SELECT 1") // want `the prepared statement st from \(\*sqlx.DB\).PrepareNamed is not closed`
	if err != nil {
		return err
	}
	_ = st
	return nil
}

func pgxRows(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, "SELECT 1") // want `the rows rows from \(pgx.Tx\).Query are not closed`
	if err != nil {
		return err
	}
	if !rows.Next() {
		return errEmpty
	}
	return nil
}

func pooled(ctx context.Context, p *pgxpool.Pool) error {
	c, err := p.Acquire(ctx) // want `the pooled connection c from \(\*pgxpool.Pool\).Acquire is not released`
	if err != nil {
		return err
	}
	_ = c
	return nil
}

func pooledReleased(ctx context.Context, p *pgxpool.Pool) error {
	c, err := p.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return nil
}

func census(ctx context.Context) error {
	ctx, span := trace.StartSpan(ctx, "work") // want `the span span from trace.StartSpan is not ended`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	span.End()
	return nil
}
