package detached

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// Inside an errgroup literal the fresh context still cuts the request off.
//
// bug: detachedctx
func (h *Health) checkAll(w http.ResponseWriter, r *http.Request) {
	var g errgroup.Group
	for _, c := range h.checks {
		g.Go(func() error {
			return c.Check(context.Background())
		})
	}
	if err := g.Wait(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// A goroutine that uses the spawner's context and also makes a fresh one.
//
// bug: detachedctx
func (s *Server) Mirror(ctx context.Context, key string) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		v, err := s.cache.Get(ctx, key)
		if err != nil {
			return
		}
		_ = s.cache.Set(context.Background(), "mirror:"+key, v)
	}()
}

// A timeout rooted in TODO inside a method whose receiver carries the
// server's context.
//
// bug: detachedctx
func (s *Server) Expire(key string) error {
	ctx, cancel := context.WithTimeout(context.TODO(), time.Second)
	defer cancel()
	return s.cache.Set(ctx, key, nil)
}

// Work registered to run after the context ended needs a live context.
//
// ok: detachedctx
func (s *Server) ReleaseOnDone(ctx context.Context, key string) {
	context.AfterFunc(ctx, func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.cache.Set(cctx, key, nil)
	})
}

// ok: detachedctx
func (h *Health) checkAllOK(w http.ResponseWriter, r *http.Request) {
	g, ctx := errgroup.WithContext(r.Context())
	for _, c := range h.checks {
		g.Go(func() error {
			return c.Check(ctx)
		})
	}
	if err := g.Wait(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// ok: detachedctx
func (s *Server) Shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.cache.Set(ctx, "state", []byte("down"))
}
