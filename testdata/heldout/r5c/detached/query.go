// Package detached holds examples of detached contexts: code that has a
// caller's context uses Background/TODO, a stored lifetime context, or a
// context-less API, so deadlines and cancellation stop propagating.
package detached

import (
	"context"
	"encoding/json"
	"net/http"

	"heldoutr5c/internal/store"
)

// QueryServer answers key lookups over HTTP. ctx is the server's lifetime
// context, used only by background maintenance; Close cancels it.
type QueryServer struct {
	ctx    context.Context
	cancel context.CancelFunc
	db     *store.DB
}

// NewQueryServer builds the server's lifetime context. It has no caller
// context to inherit from: the context lives until Close.
// ok: detachedctx
func NewQueryServer(db *store.DB) *QueryServer {
	ctx, cancel := context.WithCancel(context.Background())
	return &QueryServer{ctx: ctx, cancel: cancel, db: db}
}

// Close ends the server's lifetime context.
// ok: detachedctx
func (s *QueryServer) Close() {
	s.cancel()
}

// ServeHTTP looks the key up with s.ctx, the server's lifetime context,
// instead of r.Context(): a client that disconnects or whose deadline passes
// leaves its lookup running to completion.
// From: dgraph-io/dgraph#5418
// bug: detachedctx
func (s *QueryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec, err := s.db.Get(s.ctx, r.URL.Query().Get("key"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	_ = json.NewEncoder(w).Encode(rec)
}

// ServeVersion is the near-miss of ServeHTTP: the lookup runs on
// r.Context(), so it stops when the client goes away.
// From: dgraph-io/dgraph#5418
// ok: detachedctx
func (s *QueryServer) ServeVersion(w http.ResponseWriter, r *http.Request) {
	rec, err := s.db.Get(r.Context(), r.URL.Query().Get("key"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]int64{"version": rec.Version})
}
