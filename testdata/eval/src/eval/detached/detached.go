// Package detached holds detachedctx cases: fresh root contexts where a
// caller's context is in reach, shaped after reports of handlers querying
// the database under context.Background() (work continues after the
// client disconnects), storage clients dropping the caller's deadline, and
// trace IDs lost from log records.
package detached

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

type Cache interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, val []byte) error
}

type Server struct {
	db     *sql.DB
	cache  Cache
	log    *slog.Logger
	ctx    context.Context
	once   sync.Once
	wg     sync.WaitGroup
	client *http.Client
}

// bug: detachedctx
func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	row := s.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1", r.URL.Query().Get("id"))
	var name string
	if err := row.Scan(&name); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write([]byte(name))
}

// bug: detachedctx
func (s *Server) Lookup(ctx context.Context, key string) ([]byte, error) {
	return s.cache.Get(context.Background(), key)
}

// bug: detachedctx
func (s *Server) Store(ctx context.Context, key string, val []byte) error {
	if _, err := s.db.ExecContext(ctx, "INSERT INTO kv VALUES ($1, $2)", key, val); err != nil {
		return err
	}
	return s.cache.Set(context.TODO(), key, val)
}

// bug: detachedctx
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	rows, err := s.db.QueryContext(context.Background(), "SELECT id FROM docs WHERE body LIKE $1", r.FormValue("q"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return
		}
		w.Write([]byte(id + "\n"))
	}
}

// bug: detachedctx
func (s *Server) Proxy(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return s.client.Do(req)
}

// bug: detachedctx
func (s *Server) Count(ctx context.Context, table string) (int, error) {
	qctx, cancel := context.WithTimeout(context.TODO(), 3*time.Second)
	defer cancel()
	var n int
	err := s.db.QueryRowContext(qctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// bug: detachedctx
func (s *Server) Audit(ctx context.Context, user string) {
	s.log.InfoContext(context.Background(), "access", "user", user)
}

// bug: detachedctx
func (s *Server) WithTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// bug: detachedctx
func (s *Server) Refresh(ctx context.Context, keys []string) error {
	for _, k := range keys {
		v, err := s.cache.Get(ctx, k)
		if err != nil {
			return err
		}
		if err := s.cache.Set(context.Background(), k+":copy", v); err != nil {
			return err
		}
	}
	return nil
}

// bug: detachedctx
func (s *Server) Invalidate(key string) error {
	return s.cache.Set(context.Background(), key, nil)
}

// ok: detachedctx
func (s *Server) Ping() error {
	return s.PingContext(context.Background())
}

// ok: detachedctx
func (s *Server) PingContext(ctx context.Context) error {
	return s.db.PingContext(ctx)
}

// bug: detachedctx
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	check := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return s.db.PingContext(ctx)
	}
	if err := check(); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// bug: detachedctx
func (s *Server) Prefetch(ctx context.Context, keys []string) {
	bg := context.Background()
	for _, k := range keys {
		if _, err := s.cache.Get(bg, k); err != nil {
			s.log.WarnContext(ctx, "prefetch", "key", k, "err", err)
		}
	}
}

// bug: detachedctx
func (s *Server) Upload(ctx context.Context, url string, body []byte) error {
	dctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(30*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(dctx, http.MethodPut, url, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// bug: detachedctx
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(context.Background(), ctxKey{}, r.Header.Get("X-Request-ID"))
	if _, err := s.db.ExecContext(ctx, "DELETE FROM docs WHERE id = $1", r.FormValue("id")); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type ctxKey struct{}

// ---- near-misses ----

// ok: detachedctx
func (s *Server) handleUserOK(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var name string
	if err := s.db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1", r.FormValue("id")).Scan(&name); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write([]byte(name))
}

// ok: detachedctx
func LoadConfig(c Cache) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Get(ctx, "config")
}

// ok: detachedctx
func (s *Server) WithTxRollback(ctx context.Context, fn func(*sql.Tx) error) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// ok: detachedctx
func (s *Server) AuditAfter(ctx context.Context, user string) error {
	if _, err := s.db.ExecContext(ctx, "UPDATE users SET seen = now() WHERE id = $1", user); err != nil {
		return err
	}
	defer s.log.InfoContext(context.WithoutCancel(ctx), "seen", "user", user)
	return nil
}

// ok: detachedctx
func NewServer(db *sql.DB) *Server {
	return &Server{db: db, ctx: context.Background()}
}

// ok: detachedctx
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.db.ExecContext(ctx, "UPDATE leases SET holder = NULL WHERE holder = $1", "me")
	return err
}

// ok: detachedctx
func (s *Server) Warm(ctx context.Context) {
	s.once.Do(func() {
		wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.cache.Set(wctx, "warm", []byte("1"))
	})
}

// ok: detachedctx
func (s *Server) Serve(ctx context.Context, srv *http.Server) error {
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}

// ok: detachedctx
func (s *Server) Get(ctx context.Context, key string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return s.cache.Get(ctx, key)
}

// ok: detachedctx
func (s *Server) Enqueue(ctx context.Context, key string, val []byte) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		bctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = s.cache.Set(bctx, key, val)
	}()
}

// ok: detachedctx
func (s *Server) StoreDetached(ctx context.Context, key string, val []byte) error {
	if err := s.cache.Set(ctx, key, val); err != nil {
		return err
	}
	// Replication must finish even if the caller leaves.
	return s.cache.Set(context.WithoutCancel(ctx), "replica:"+key, val)
}

// ok: detachedctx
func (s *Server) handleSearchOK(w http.ResponseWriter, r *http.Request) {
	rows, err := s.db.QueryContext(r.Context(), "SELECT id FROM docs WHERE body LIKE $1", r.FormValue("q"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return
		}
		w.Write([]byte(id + "\n"))
	}
}

// ok: detachedctx
func (s *Server) Drain(ctx context.Context, srv *http.Server) error {
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

// ok: detachedctx
func (s *Server) Lookup2(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	return s.cache.Get(ctx, key)
}

// ok: detachedctx
func (s *Server) BaseContext() context.Context {
	return context.Background()
}
