// Package detached holds code that already has a context but calls
// context.Background()/TODO() or a context-less API, so deadlines and
// cancellation stop propagating.
package detached

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// PLC TCP client

// TCPClientHandler connects to an S7 PLC over TCP.
type TCPClientHandler struct {
	Address string
	Timeout time.Duration

	mu   sync.Mutex
	conn net.Conn
}

// ConnectContext establishes the TCP connection unless one is already open.
// From: robinson/gos7#83
// the dial goes through net.Dialer.Dial, so cancelling ctx during shutdown does not abort the connection attempt, which blocks for the full dial timeout
//
// bug: detachedctx
func (h *TCPClientHandler) ConnectContext(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != nil {
		return nil
	}
	d := net.Dialer{Timeout: h.Timeout, KeepAlive: 30 * time.Second}
	conn, err := d.Dial("tcp", h.Address)
	if err != nil {
		return fmt.Errorf("s7: connect %s: %w", h.Address, err)
	}
	h.conn = conn
	return nil
}

// ConnectContextNearMiss is ConnectContext dialling with DialContext.
// From: robinson/gos7#83
//
// ok: detachedctx
func (h *TCPClientHandler) ConnectContextNearMiss(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn != nil {
		return nil
	}
	d := net.Dialer{Timeout: h.Timeout, KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", h.Address)
	if err != nil {
		return fmt.Errorf("s7: connect %s: %w", h.Address, err)
	}
	h.conn = conn
	return nil
}

// ---------------------------------------------------------------------------
// Database connection helper

// DBConn wraps a database handle used by backup utilities.
type DBConn struct {
	db *sql.DB
}

// SelectStrings runs a single-column query and returns its values.
// From: greenplum-db/gp-common-go-libs#89
// the query is issued with db.Query, which uses context.Background internally, so cancelling ctx does not stop a long catalog query
//
// bug: detachedctx
func (c *DBConn) SelectStrings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := c.db.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("select: scan: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	return out, nil
}

// SelectStringsNearMiss is SelectStrings issuing the query with QueryContext.
// From: greenplum-db/gp-common-go-libs#89
//
// ok: detachedctx
func (c *DBConn) SelectStringsNearMiss(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := c.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("select: scan: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Engine API router

// APIFunc is the signature of engine API handlers.
type APIFunc func(ctx context.Context, w http.ResponseWriter, r *http.Request, vars map[string]string) error

// versionKey carries the negotiated API version.
type versionKey struct{}

// APIServer routes engine API calls.
type APIServer struct {
	logger *log.Logger
}

// writeError maps a handler error to an HTTP response.
//
// ok: detachedctx
func (s *APIServer) writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if errors.Is(err, context.Canceled) {
		status = 499
	} else if errors.Is(err, context.DeadlineExceeded) {
		status = http.StatusGatewayTimeout
	}
	s.logger.Printf("handler error: %v", err)
	http.Error(w, err.Error(), status)
}

// makeHTTPHandler adapts an APIFunc to net/http.
// From: moby/moby#21523
// the handler context is built from context.Background() instead of r.Context(), so a client that disconnects during a pull or log follow never cancels the work
//
// bug: detachedctx
func (s *APIServer) makeHTTPHandler(handler APIFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(context.Background(), versionKey{}, r.Header.Get("API-Version"))
		vars := map[string]string{"name": r.PathValue("name")}
		if err := handler(ctx, w, r, vars); err != nil {
			s.writeError(w, err)
		}
	}
}

// makeHTTPHandlerNearMiss is makeHTTPHandler deriving the handler context from the request.
// From: moby/moby#21523
//
// ok: detachedctx
func (s *APIServer) makeHTTPHandlerNearMiss(handler APIFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), versionKey{}, r.Header.Get("API-Version"))
		vars := map[string]string{"name": r.PathValue("name")}
		if err := handler(ctx, w, r, vars); err != nil {
			s.writeError(w, err)
		}
	}
}

// ---------------------------------------------------------------------------
// RESTful proxy middleware

// timeoutMiddleware bounds each REST request by d.
// From: milvus-io/milvus#49894
// the deadline is derived from context.TODO() rather than r.Context(), so a client disconnect no longer reaches the proxy task, which runs until the REST timeout
//
// bug: detachedctx
func timeoutMiddleware(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.TODO(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// timeoutMiddlewareNearMiss is timeoutMiddleware deriving the deadline from the request context.
// From: milvus-io/milvus#49894
//
// ok: detachedctx
func timeoutMiddlewareNearMiss(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// ---------------------------------------------------------------------------
// Policy source checkout

// GitSource is a policy repository fetched with git.
type GitSource struct {
	URL string
	Ref string
}

// Checkout clones the policy repository into dir.
// From: conforma/cli#81
// git is started with exec.Command, so the command's timeout context is never applied and a slow clone keeps running after ctx expires
//
// bug: detachedctx
func (g *GitSource) Checkout(ctx context.Context, dir string) error {
	cmd := exec.Command("git", "clone", "--depth=1", "--branch", g.Ref, g.URL, dir)
	out, err := cmd.CombinedOutput()
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("git clone %s: %w", g.URL, cerr)
	}
	if err != nil {
		return fmt.Errorf("git clone %s: %w: %s", g.URL, err, out)
	}
	return nil
}

// CheckoutNearMiss is Checkout starting git with exec.CommandContext.
// From: conforma/cli#81
//
// ok: detachedctx
func (g *GitSource) CheckoutNearMiss(ctx context.Context, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "clone", "--depth=1", "--branch", g.Ref, g.URL, dir)
	out, err := cmd.CombinedOutput()
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("git clone %s: %w", g.URL, cerr)
	}
	if err != nil {
		return fmt.Errorf("git clone %s: %w: %s", g.URL, err, out)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Incident investigation manager

// Session is one incident investigation.
type Session struct {
	ID string

	mu     sync.Mutex
	done   bool
	result error
}

// finish records the investigation outcome.
//
// ok: detachedctx
func (s *Session) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	s.result = err
}

// Manager runs investigations in the background until shutdown.
type Manager struct {
	shutdownCtx context.Context
	maxDuration time.Duration
	investigate func(ctx context.Context, s *Session) error
	wg          sync.WaitGroup
}

// StartInvestigation launches the investigation for s in the background.
// From: jordigilh/kubernaut#965
// the investigation context is built from context.Background() although m.shutdownCtx is available, so shutdown cannot cancel a runaway investigation and Wait blocks until maxDuration elapses
//
// bug: detachedctx
func (m *Manager) StartInvestigation(s *Session) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), m.maxDuration)
		defer cancel()
		s.finish(m.investigate(ctx, s))
	}()
}

// StartInvestigationNearMiss is StartInvestigation deriving the context from shutdownCtx.
// From: jordigilh/kubernaut#965
//
// ok: detachedctx
func (m *Manager) StartInvestigationNearMiss(s *Session) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(m.shutdownCtx, m.maxDuration)
		defer cancel()
		s.finish(m.investigate(ctx, s))
	}()
}

// Wait blocks until every started investigation has finished.
//
// ok: detachedctx
func (m *Manager) Wait() {
	m.wg.Wait()
}
