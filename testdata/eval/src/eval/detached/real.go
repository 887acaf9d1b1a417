package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"time"
)

type Checker interface {
	Check(ctx context.Context) error
}

type Health struct {
	checks map[string]Checker
}

// Modelled on a health-check handler that ran every check under
// context.Background(): a dropped probe connection left the checks running.
//
// bug: detachedctx
func (h *Health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status := map[string]string{}
	for name, c := range h.checks {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := c.Check(ctx)
		cancel()
		if err != nil {
			status[name] = err.Error()
		} else {
			status[name] = "ok"
		}
	}
	json.NewEncoder(w).Encode(status)
}

type UserClient interface {
	GetUser(ctx context.Context, id string) (string, error)
}

type Gateway struct {
	users UserClient
}

// Modelled on an HTTP-to-RPC gateway that called the backend with
// context.Background() instead of r.Context().
//
// bug: detachedctx
func (g *Gateway) getUser(w http.ResponseWriter, r *http.Request) {
	name, err := g.users.GetUser(context.Background(), r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(name))
}

// The fresh context hides in a helper's argument list two levels down.
//
// bug: detachedctx
func (g *Gateway) lookupAll(ctx context.Context, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	get := func(id string) (string, error) {
		return g.users.GetUser(context.TODO(), id)
	}
	for _, id := range ids {
		n, err := get(id)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ok: detachedctx
func (h *Health) ServeHTTPOK(w http.ResponseWriter, r *http.Request) {
	status := map[string]string{}
	for name, c := range h.checks {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		err := c.Check(ctx)
		cancel()
		if err != nil {
			status[name] = err.Error()
		} else {
			status[name] = "ok"
		}
	}
	json.NewEncoder(w).Encode(status)
}

// Package-level background contexts for process-lifetime work are fine.
//
// ok: detachedctx
func StartReaper(db *sql.DB, every time.Duration) {
	ctx := context.Background()
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for range t.C {
			db.ExecContext(ctx, "DELETE FROM sessions WHERE expires < now()")
		}
	}()
}

// A deliberate detached write, documented with a reason.
//
// ok: detachedctx
func (g *Gateway) recordLogin(ctx context.Context, db *sql.DB, id string) error {
	if _, err := g.users.GetUser(ctx, id); err != nil {
		return err
	}
	// detached: the login record must be written even if the client leaves
	_, err := db.ExecContext(context.Background(), "INSERT INTO logins(id) VALUES ($1)", id)
	return err
}

// ok: detachedctx
func (g *Gateway) getUserOK(w http.ResponseWriter, r *http.Request) {
	name, err := g.users.GetUser(r.Context(), r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write([]byte(name))
}
