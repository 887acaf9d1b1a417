package afterdone

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Commit in the Done case of a select: the transaction is already rolled
// back.
func commitOnDone(ctx context.Context, db *sql.DB, work <-chan string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for {
		select {
		case q := <-work:
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		case <-ctx.Done():
			return tx.Commit() // want `tx from \(\*sql.DB\).BeginTx is used after its context ctx is done, so tx.Commit fails \(with sql.ErrTxDone or the context's error\): database/sql rolls the transaction back as soon as ctx ends`
		}
	}
}

// Flushing the work done so far after waiting for the context to end.
func flushAfterWait(ctx context.Context, conn *sql.Conn) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	<-ctx.Done()
	if _, err := tx.Exec("UPDATE jobs SET state = 'stopped'"); err != nil { // want `tx from \(\*sql.Conn\).BeginTx is used after its context ctx is done, so tx.Exec fails`
		return err
	}
	return tx.Commit()
}

// Saving partial work when the request was cancelled.
func saveOnCancel(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			_, _ = tx.Exec("INSERT INTO audit VALUES ('cancelled')") // want `tx from \(\*sql.DB\).BeginTx is used after its context ctx is done`
		}
		return err
	}
	return tx.Commit()
}

// Reading on after the context ended.
func drainOnTimeout(ctx context.Context, db *sql.DB) (int, error) {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	if ctx.Err() != nil {
		for rows.Next() { // want `rows from \(\*sql.DB\).QueryContext is used after its context ctx is done, so rows.Next returns false and the remaining rows are lost: database/sql closes the rows as soon as ctx ends`
			n++
		}
	}
	return n, rows.Err()
}

// Near misses.

// Rollback in the Done case is what should happen.
func rollbackOnDone(ctx context.Context, db *sql.DB, done <-chan struct{}) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		tx.Rollback()
		return ctx.Err()
	case <-done:
		return tx.Commit()
	}
}

// Commit before the Done check.
func commitFirst(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.Commit(); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// Another context's Done.
func otherContext(ctx, stop context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	select {
	case <-stop.Done():
		return tx.Commit()
	case <-time.After(time.Second):
		return nil
	}
}

// Acquired with a context that outlives ctx.
func withoutCancel(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	<-ctx.Done()
	return tx.Commit()
}

func background(ctx context.Context, db *sql.DB) error {
	bg := context.Background()
	tx, err := db.BeginTx(bg, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if ctx.Err() != nil {
		return tx.Commit()
	}
	return nil
}

// A fresh transaction acquired inside the branch, with a fresh context.
func freshTx(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	select {
	case <-ctx.Done():
		tx2, err := db.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			return err
		}
		defer tx2.Rollback()
		return tx2.Commit()
	default:
		return tx.Commit()
	}
}

// The lease variable is reassigned: not followed.
func reassigned(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx.Rollback()
	tx, err = db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	<-ctx.Done()
	return tx.Commit()
}

// rows.Err and Close after the context is done are how to finish.
func rowsErr(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SELECT 1")
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		rows.Close()
		return rows.Err()
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// A Prepare-d statement is not tied to the context it was prepared with,
// nor is a Conn from db.Conn(ctx).
func stmtAndConn(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	<-ctx.Done()
	return conn.PingContext(context.Background())
}

// The Err check in the else branch is on the not-done path.
func elseBranch(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if ctx.Err() != nil {
		return ctx.Err()
	} else {
		return tx.Commit()
	}
}

// Used in a closure run later: not followed.
func closure(ctx context.Context, db *sql.DB) (func() error, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	<-ctx.Done()
	return func() error { return tx.Commit() }, nil
}

// The context's error bound in the if statement.
func boundErr(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := ctx.Err(); err != nil {
		_ = tx.Commit() // want `tx from \(\*sql.DB\).BeginTx is used after its context ctx is done, so tx.Commit fails`
		return err
	}
	return tx.Commit()
}

// An error bound in the if statement that is not the context's.
func otherErr(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec("DELETE FROM t"); err != nil {
		return err
	}
	if err := ctx.Err(); err == nil {
		return tx.Commit()
	}
	return nil
}

// The context is reassigned in a closure: not followed.
func ctxInClosure(ctx context.Context, db *sql.DB, swap func(func())) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	swap(func() { ctx = context.Background() })
	if ctx.Err() != nil {
		return tx.Commit()
	}
	return nil
}
