package detached

import (
	"context"
	"net/http"
)

// The request itself is in reach through the handler's parameter; a
// WithValue chain rooted in TODO drops its deadline.
//
// bug: detachedctx
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(context.TODO(), ctxKey{}, r.RemoteAddr)
	v, err := s.cache.Get(ctx, r.URL.Path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Write(v)
}

type noopStore struct {
	c Cache
}

// The context parameter is explicitly ignored (_): nothing in reach.
//
// ok: detachedctx
func (n noopStore) Save(_ context.Context, key string) error {
	return n.c.Set(context.Background(), key, nil)
}
