package a

import (
	"context"

	"rowsdb"
)

// A query canceled half-way returns a short list and no error.
func names(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() { // want `rows.Err\(\) is never checked, so when ctx is canceled the loop over rows.Next\(\) just ends early and names returns a partial result with a nil error`
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// A cursor advanced under the context.
func countDocs(ctx context.Context, db *rowsdb.DB) (int, error) {
	c := db.Find("{}")
	n := 0
	for c.Next(ctx) { // want `c.Err\(\) is never checked`
		n++
	}
	return n, nil
}

// Near-miss: Err is checked after the loop.
func namesOK(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Near-miss: a query under a detached context.
func namesDetached(db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(context.Background(), "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		out = append(out, "")
	}
	return out, nil
}

// Near-miss: nothing to return the error with.
func printNames(ctx context.Context, db *rowsdb.DB) {
	rows, err := db.Query(ctx, "SELECT name FROM t")
	if err != nil {
		return
	}
	for rows.Next() {
	}
}

// Near-miss: the rows are handed to a helper that checks them.
func namesVia(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		break
	}
	return collect(rows)
}

func collect(r *rowsdb.Rows) ([]string, error) { return nil, r.Err() }

// Near-miss: an iterator with no context behind it.
func countLines(s string) (int, error) {
	l := rowsdb.NewLines(s)
	n := 0
	for l.Next() {
		n++
	}
	return n, nil
}

// Declared first, assigned later.
func namesDeclared(ctx context.Context, db *rowsdb.DB) (int, error) {
	var rows *rowsdb.Rows
	var err error
	rows, err = db.Query(ctx, "SELECT name FROM t")
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() { // want `rows.Err\(\) is never checked`
		n++
	}
	return n, nil
}

// Near-miss: the query's error is left to the rows (pgx documents that
// Query's error may be ignored and read from Rows.Err), and the helper reads
// it.
func namesDeferred(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, _ := db.Query(ctx, "SELECT name FROM t")
	return collect(rows)
}

// The error is left to the rows, but nothing reads rows.Err: one finding,
// on the loop that ends early, not a second on the dropped error.
func countDeferred(ctx context.Context, db *rowsdb.DB) (int, error) {
	rows, _ := db.Query(ctx, "SELECT name FROM t")
	n := 0
	for rows.Next() { // want `rows.Err\(\) is never checked`
		n++
	}
	return n, nil
}
