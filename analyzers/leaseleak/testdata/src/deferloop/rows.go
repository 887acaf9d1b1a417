package deferloop

import (
	"context"
	"database/sql"
)

// namesInBatches iterates each round's rows to their end, which closes
// them: the deferred Close is redundant, and nothing piles up.
func namesInBatches(ctx context.Context, db *sql.DB, batches []string) ([]string, error) {
	var out []string
	for _, q := range batches {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return out, err
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// firstInBatches reads one row per round and goes on with the rows open.
func firstInBatches(ctx context.Context, db *sql.DB, batches []string) ([]string, error) {
	var out []string
	for _, q := range batches {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close() // want `the rows rows from \(\*sql.DB\).QueryContext is released by this deferred call, which runs only when firstInBatches returns`
		if rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return out, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// usersInGroups is namesInBatches with the errors assigned, not declared.
func usersInGroups(ctx context.Context, db *sql.DB, batches []string) ([]string, error) {
	var out []string
	for _, q := range batches {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			err = rows.Scan(&s)
			if err != nil {
				return out, err
			}
			out = append(out, s)
		}
		err = rows.Err()
		if err != nil {
			return out, err
		}
	}
	return out, nil
}
