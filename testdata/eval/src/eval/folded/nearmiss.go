package folded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// ok: foldedtimeout
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("port %q: %v", s, err)
	}
	return n, nil
}

// The message goes to the client, not up the stack.
//
// ok: foldedtimeout
func (c *Client) handleGet(w http.ResponseWriter, r *http.Request) {
	rec, err := c.be.Read(r.Context(), r.URL.Path)
	if err != nil {
		http.Error(w, fmt.Sprintf("read: %v", err), http.StatusBadGateway)
		return
	}
	io.WriteString(w, rec.Val)
}

// Comparisons against non-context sentinels.
//
// ok: foldedtimeout
func (c *Client) Exists(ctx context.Context, db *sql.DB, key string) (bool, error) {
	var v string
	err := db.QueryRowContext(ctx, "SELECT v FROM kv WHERE k = $1", key).Scan(&v)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// TimeoutError keeps the cause reachable through Is.
type TimeoutError struct {
	Op  string
	err error
}

// ok: foldedtimeout
func (e *TimeoutError) Error() string { return e.Op + ": timeout" }

// ok: foldedtimeout
func (e *TimeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded || errors.Is(e.err, target)
}

// ok: foldedtimeout
func (c *Client) GetT(ctx context.Context, key string) (Record, error) {
	r, err := c.be.Read(ctx, key)
	if errors.Is(err, context.DeadlineExceeded) {
		return Record{}, &TimeoutError{Op: "get " + key, err: err}
	}
	return r, err
}
