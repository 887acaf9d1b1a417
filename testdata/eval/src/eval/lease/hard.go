package lease

import (
	"context"
	"database/sql"
	"os"
)

// closeQuietly releases its parameter.
//
// ok: leaseleak
func closeQuietly(f *os.File) {
	_ = f.Close()
}

// Rows opened per table; the skip path leaves them open.
//
// bug: leaseleak
func (r *Repo) CountAll(ctx context.Context, tables []string) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range tables {
		rows, err := r.db.QueryContext(ctx, "SELECT count(*) FROM "+t)
		if err != nil {
			return nil, err
		}
		if !rows.Next() {
			continue
		}
		var n int
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		if n == 0 {
			continue
		}
		out[t] = n
		rows.Close()
	}
	return out, nil
}

// The transaction is neither committed nor rolled back when the row is
// missing.
//
// bug: leaseleak
func (r *Repo) Rename(ctx context.Context, id, name string) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, "UPDATE t SET name = $1 WHERE id = $2", name, id)
	if err != nil {
		tx.Rollback()
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sql.ErrNoRows
	}
	return tx.Commit()
}

// Released through a helper that closes its parameter.
//
// ok: leaseleak
func Size(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer closeQuietly(f)
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Released in a deferred closure that also reports the close error.
//
// ok: leaseleak
func WriteFile(path string, b []byte) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.Write(b)
	return err
}

// ok: leaseleak
func (r *Repo) RenameOK(ctx context.Context, id, name string) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "UPDATE t SET name = $1 WHERE id = $2", name, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sql.ErrNoRows
	}
	return tx.Commit()
}
