package swallow

import (
	"context"
	"database/sql"
)

// Invoice is one billing row.
type Invoice struct {
	ID       int64
	Customer string
	Cents    int64
}

// scanInvoice reads one invoice row.
// ok: swallowcancel
func scanInvoice(rows *sql.Rows) (Invoice, error) {
	var inv Invoice
	err := rows.Scan(&inv.ID, &inv.Customer, &inv.Cents)
	return inv, err
}

// queryAll runs q and scans every row. It never consults rows.Err() after the
// loop: when ctx is canceled mid-stream rows.Next returns false, the error
// stays inside rows, and the truncated slice is returned as a complete result.
// From: mvanhorn/printing-press-library#676
// bug: swallowcancel
func queryAll[T any](ctx context.Context, db *sql.DB, q string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// queryEvery is the near-miss of queryAll: after the loop it returns
// rows.Err(), which holds the context error when iteration was cut short.
// From: mvanhorn/printing-press-library#676
// ok: swallowcancel
func queryEvery[T any](ctx context.Context, db *sql.DB, q string, scan func(*sql.Rows) (T, error), args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// ListInvoices returns a customer's invoices (through the buggy helper; the
// defect belongs to queryAll, not to this caller).
// ok: swallowcancel
func ListInvoices(ctx context.Context, db *sql.DB, customer string) ([]Invoice, error) {
	return queryAll(ctx, db, `SELECT id, customer, cents FROM invoices WHERE customer = ?`, scanInvoice, customer)
}

// ListOverdue returns overdue invoices through the correct helper.
// ok: swallowcancel
func ListOverdue(ctx context.Context, db *sql.DB) ([]Invoice, error) {
	return queryEvery(ctx, db, `SELECT id, customer, cents FROM invoices WHERE due < now()`, scanInvoice)
}
