package lease

import (
	"context"
	"database/sql"
	"fmt"
)

// Segment is one path segment to store.
type Segment struct {
	ID    string
	Raw   []byte
	Types []int
}

// PathDB stores path segments in SQLite.
type PathDB struct {
	db *sql.DB
}

// InsertFull stores a segment and its type rows in one transaction. The
// error returns after BeginTx leave the transaction open, holding the
// connection and the database lock.
// From: scionproto/scion#2408
// bug: leaseleak
func (p *PathDB) InsertFull(ctx context.Context, s Segment) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO segments(id, raw) VALUES(?, ?)", s.ID, s.Raw); err != nil {
		return fmt.Errorf("insert segment %s: %w", s.ID, err)
	}
	for _, t := range s.Types {
		if _, err := tx.ExecContext(ctx, "INSERT INTO seg_types(seg_id, type) VALUES(?, ?)", s.ID, t); err != nil {
			return fmt.Errorf("insert type %d: %w", t, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// InsertFullNearMiss defers a rollback, which is a no-op after Commit.
// ok: leaseleak
func (p *PathDB) InsertFullNearMiss(ctx context.Context, s Segment) error {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, "INSERT INTO segments(id, raw) VALUES(?, ?)", s.ID, s.Raw); err != nil {
		return fmt.Errorf("insert segment %s: %w", s.ID, err)
	}
	for _, t := range s.Types {
		if _, err := tx.ExecContext(ctx, "INSERT INTO seg_types(seg_id, type) VALUES(?, ?)", s.ID, t); err != nil {
			return fmt.Errorf("insert type %d: %w", t, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
