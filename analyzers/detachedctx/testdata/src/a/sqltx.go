package a

import (
	"context"
	"database/sql"
)

// A migration step runs inside a transaction its runner began with ctx:
// the Tx, and what it prepares, end with that context.
func upAddDefaults(ctx context.Context, tx *sql.Tx) error {
	stmt, err := tx.Prepare("insert into t (name) values (?)")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, n := range []string{"a", "b"} {
		if _, err := stmt.Exec(n); err != nil {
			return err
		}
	}
	_, err = tx.Exec("update t set seen = 1")
	return err
}

// Near-miss: a statement prepared on the database is bound to no context.
func insertAll(ctx context.Context, db *sql.DB, names []string) error {
	stmt, err := db.Prepare("insert into t (name) values (?)") // want `db.Prepare takes no context although ctx is in reach`
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, n := range names {
		if _, err := stmt.Exec(n); err != nil { // want `stmt.Exec takes no context although ctx is in reach`
			return err
		}
	}
	return nil
}
