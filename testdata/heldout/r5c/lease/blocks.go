package lease

import (
	"context"
	"database/sql"
)

// Block is one board element.
type Block struct {
	ID, Type, Title string
}

// SQLStore reads boards from SQL.
type SQLStore struct {
	db *sql.DB
}

// LoadBlocks reads a board's blocks, checking for cancellation between rows.
// Rows close themselves when Next returns false and the scan-error path
// closes them by hand, but the cancellation return does neither, so every
// abandoned request pins a pool connection.
// From: mattermost-community/focalboard#679
// bug: leaseleak
func (s *SQLStore) LoadBlocks(ctx context.Context, boardID string) ([]Block, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, type, title FROM blocks WHERE board_id = ?`, boardID)
	if err != nil {
		return nil, err
	}
	var out []Block
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var b Block
		if err := rows.Scan(&b.ID, &b.Type, &b.Title); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// LoadCards is the near-miss of LoadBlocks: rows.Close is deferred at the
// allocation site, so the cancellation return releases the connection too.
// From: mattermost-community/focalboard#679
// ok: leaseleak
func (s *SQLStore) LoadCards(ctx context.Context, boardID string) ([]Block, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, type, title FROM blocks WHERE board_id = ? AND type = 'card'`, boardID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Block
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var b Block
		if err := rows.Scan(&b.ID, &b.Type, &b.Title); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// WithTx runs fn in a transaction. There is no Commit or Rollback next to
// BeginTx; the deferred closure does both: it rolls back on error or panic and
// commits otherwise, on every path.
// ok: leaseleak
func (s *SQLStore) WithTx(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	return fn(tx)
}
