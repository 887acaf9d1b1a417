// Package rows formats the errors that an error-less context-bound call
// defers into the value it returns (sql.Row's Scan).
package rows

import (
	"context"
	"database/sql"
	"fmt"
)

func queryOne(ctx context.Context, db *sql.DB, q string, dest ...any) error {
	if err := db.QueryRowContext(ctx, q).Scan(dest...); err != nil {
		return fmt.Errorf("query: %s", err) // want `fmt.Errorf formats err with %s, so the cancellation it may carry is lost`
	}
	return nil
}

func queryOneLocal(ctx context.Context, db *sql.DB, q string, dest ...any) error {
	row := db.QueryRowContext(ctx, q)
	if err := row.Scan(dest...); err != nil {
		return fmt.Errorf("query: %v", err) // want `fmt.Errorf formats err with %v, so the cancellation it may carry is lost`
	}
	return nil
}

// Under Background: no caller's cancellation to lose.
func queryOneDetached(db *sql.DB, q string, dest ...any) error {
	if err := db.QueryRowContext(context.Background(), q).Scan(dest...); err != nil {
		return fmt.Errorf("query: %v", err)
	}
	return nil
}

func queryOneWrapped(ctx context.Context, db *sql.DB, q string, dest ...any) error {
	if err := db.QueryRowContext(ctx, q).Scan(dest...); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}
