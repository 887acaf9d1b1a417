package sqls

import (
	"context"
	"database/sql"
	"errors"
)

// Early return inside the iteration leaks the rows.
func names(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM t") // want `the rows rows from \(\*sql.DB\).QueryContext are not closed on the path through the return when err != nil, so the database connection is not returned to the pool`
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Transaction neither committed nor rolled back on the cancellation path.
func transfer(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil) // want `the transaction tx from \(\*sql.DB\).BeginTx is not committed or rolled back on the path through the return when ctx.Err\(\) != nil`
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE a"); err != nil {
		tx.Rollback()
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return tx.Commit()
}

// Statement never closed.
func prepare(ctx context.Context, db *sql.DB) error {
	st, err := db.PrepareContext(ctx, "SELECT 1") // want `the prepared statement st from \(\*sql.DB\).PrepareContext is not closed on the path through the return`
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// ---- near misses ----

func good(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// Iterated to the end: Next returning false closes the rows.
func drained(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

func txGood(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE a"); err != nil {
		return err
	}
	return tx.Commit()
}

// Rows returned to the caller.
func query(ctx context.Context, db *sql.DB) (*sql.Rows, error) {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		rows.Close()
		return nil, ctx.Err()
	}
	return rows, nil
}

type store struct {
	stmt *sql.Stmt
}

func (s *store) Close() error { return s.stmt.Close() }

// Stored in a field of an owner with a Close method.
func (s *store) init(ctx context.Context, db *sql.DB) error {
	st, err := db.PrepareContext(ctx, "SELECT 1")
	if err != nil {
		return err
	}
	s.stmt = st
	return nil
}

// Transaction handed to a function that finishes it.
func withTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	return finish(tx, f(tx))
}

func finish(tx *sql.Tx, err error) error {
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// A different error was checked on the failure path.
func shadowOK(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return rows.Close()
}

// Near-miss: a statement prepared on a transaction is closed by its Commit
// or Rollback, which the caller that began it makes.
func migrate(ctx context.Context, tx *sql.Tx, ids []int) error {
	stmt, err := tx.PrepareContext(ctx, "UPDATE t SET x = 1 WHERE id = ?")
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, id); err != nil {
			return err
		}
	}
	rows, err := tx.QueryContext(ctx, "SELECT id FROM t")
	if err != nil {
		return err
	}
	if rows.Next() {
		return errors.New("left over")
	}
	return nil
}

// bareQuery drops the rows with the error.
func bareQuery(ctx context.Context, db *sql.DB) {
	db.QueryContext(ctx, "DELETE FROM t") // want `the rows from \(\*sql.DB\).QueryContext are discarded, so they can never be closed`
}
