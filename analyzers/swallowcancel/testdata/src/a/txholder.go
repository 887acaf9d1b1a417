package a

import (
	"context"
	"database/sql"
	"log"
)

// A transaction begun with a context: its Commit fails with the context's
// error once ctx is canceled, and dropping that error reports success.
func commitBound(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "update t set n = n + 1"); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil { // want `err may carry the cancellation of ctx and is only logged, so commitBound goes on`
		log.Printf("commit: %v", err)
	}
	return nil
}

// db.Begin holds Background: its Commit error is a database failure, never
// the caller's cancellation (dropping it is another defect, not this one).
func commitPlain(ctx context.Context, db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if _, err := tx.Exec("update t set n = n + 1"); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		log.Printf("commit: %v", err)
	}
	return nil
}
