package swallow

import (
	"context"
	"database/sql"
	"log"
	"net/http"

	"golang.org/x/sync/errgroup"
)

// The group's error (ctx's cancellation, or the failure that canceled
// gctx) is only logged, and the function reports success.
//
// bug: swallowcancel
func (s *Syncer) IndexAll(ctx context.Context, items []Item) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, it := range items {
		g.Go(func() error { return s.idx.Index(gctx, it) })
	}
	if err := g.Wait(); err != nil {
		log.Printf("index: %v", err)
	}
	return nil
}

// rows.Err() is never read: a query canceled half-way returns a short list
// and no error.
//
// bug: swallowcancel
func ListNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM users")
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
	return out, nil
}

// A handler that deletes a list of ids and answers 204 whatever happened.
//
// bug: swallowcancel
func (s *Syncer) handleBulkDelete(w http.ResponseWriter, r *http.Request) {
	for _, id := range r.URL.Query()["id"] {
		s.store.Delete(r.Context(), id)
	}
	w.WriteHeader(http.StatusNoContent)
}

// ok: swallowcancel
func ListNamesOK(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM users")
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

// ok: swallowcancel
func (s *Syncer) handleBulkDeleteOK(w http.ResponseWriter, r *http.Request) {
	for _, id := range r.URL.Query()["id"] {
		if err := s.store.Delete(r.Context(), id); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
