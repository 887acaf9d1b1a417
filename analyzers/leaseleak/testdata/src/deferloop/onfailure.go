package deferloop

import (
	"context"
	"database/sql"
	"errors"
	"os"
)

var errSkip = errors.New("skip")

// rollbackOnFailure rolls back in a defer when it fails and commits when it
// does not: every path releases the transaction.
func rollbackOnFailure(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, "UPDATE t SET n = n + 1"); err != nil {
		return err
	}
	return tx.Commit()
}

// skipReturnsNil leaves early with a nil error: the deferred rollback does
// not run, and nothing commits.
func skipReturnsNil(ctx context.Context, db *sql.DB, skip bool) (err error) {
	tx, err := db.BeginTx(ctx, nil) // want `the transaction tx from \(\*sql.DB\).BeginTx is not committed or rolled back on the path through the return when skip`
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if skip {
		return nil
	}
	if _, err = tx.ExecContext(ctx, "UPDATE t SET n = n + 1"); err != nil {
		return errSkip
	}
	return tx.Commit()
}

// closeOnFailure hands the file to its caller on success and closes it in
// a defer on failure.
func closeOnFailure(name string) (f *os.File, err error) {
	f, err = os.Open(name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if _, err = f.Stat(); err != nil {
		return nil, err
	}
	return f, nil
}
