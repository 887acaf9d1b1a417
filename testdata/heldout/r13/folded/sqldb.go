package folded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Queries wraps the service database.
type Queries struct {
	db *sql.DB
}

// CountOrders counts a customer's orders. Every failure is reported as
// ErrUnavailable with the cause formatted by %v, so a cancelled request
// looks like a database outage and loses its context error.
// From: encoredev/encore#2129
// bug: foldedtimeout
func (q *Queries) CountOrders(ctx context.Context, customer string) (int, error) {
	var n int
	err := q.db.QueryRowContext(ctx, "SELECT count(*) FROM orders WHERE customer = $1", customer).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("%w: count orders: %v", ErrUnavailable, err)
	}
	return n, nil
}

// CountOrdersNearMiss keeps context errors as themselves and wraps the
// cause with %w otherwise.
// ok: foldedtimeout
func (q *Queries) CountOrdersNearMiss(ctx context.Context, customer string) (int, error) {
	var n int
	err := q.db.QueryRowContext(ctx, "SELECT count(*) FROM orders WHERE customer = $1", customer).Scan(&n)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("count orders: %w", err)
		}
		return 0, fmt.Errorf("%w: count orders: %w", ErrUnavailable, err)
	}
	return n, nil
}
