// Package detached holds code that may drop the context it already has.
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"
)

// ---- druid-operator-style reconciler ----

type NamespacedName struct{ Namespace, Name string }

type Druid struct {
	Name     string
	Replicas int
}

type KubeClient interface {
	Get(ctx context.Context, key NamespacedName, obj *Druid) error
	Update(ctx context.Context, obj *Druid) error
}

type Result struct{ RequeueAfter time.Duration }

type DruidReconciler struct {
	Client KubeClient
}

// Reconcile brings a Druid cluster to its desired state.
// From: datainfrahq/druid-operator#43
// the API calls use context.TODO() instead of the reconcile ctx, so they keep running after the manager cancels the reconcile on shutdown
//
// bug: detachedctx
func (r *DruidReconciler) Reconcile(ctx context.Context, key NamespacedName) (Result, error) {
	var d Druid
	if err := r.Client.Get(context.TODO(), key, &d); err != nil {
		return Result{}, fmt.Errorf("get %s/%s: %w", key.Namespace, key.Name, err)
	}
	if d.Replicas < 1 {
		d.Replicas = 1
		if err := r.Client.Update(context.TODO(), &d); err != nil {
			return Result{}, err
		}
	}
	return Result{RequeueAfter: time.Minute}, nil
}

// ReconcileNearMiss brings a Druid cluster to its desired state.
// From: datainfrahq/druid-operator#43
// the reconcile ctx is passed to every API call
//
// ok: detachedctx
func (r *DruidReconciler) ReconcileNearMiss(ctx context.Context, key NamespacedName) (Result, error) {
	var d Druid
	if err := r.Client.Get(ctx, key, &d); err != nil {
		return Result{}, fmt.Errorf("get %s/%s: %w", key.Namespace, key.Name, err)
	}
	if d.Replicas < 1 {
		d.Replicas = 1
		if err := r.Client.Update(ctx, &d); err != nil {
			return Result{}, err
		}
	}
	return Result{RequeueAfter: time.Minute}, nil
}

// ---- go-sshlib-style connect ----

type Connect struct {
	conn      net.Conn
	handshake func(ctx context.Context, c net.Conn) error
}

// CreateClient dials host:port and runs the SSH handshake.
// From: blacknon/go-sshlib#40
// net.Dial ignores ctx, so the caller's timeout does not bound the TCP connect and a blackholed host hangs CreateClient
//
// bug: detachedctx
func (c *Connect) CreateClient(ctx context.Context, host, port string) error {
	conn, err := net.Dial("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	if err := c.handshake(ctx, conn); err != nil {
		_ = conn.Close()
		return err
	}
	c.conn = conn
	return nil
}

// CreateClientNearMiss dials host:port and runs the SSH handshake.
// From: blacknon/go-sshlib#40
// the dial goes through net.Dialer.DialContext with the caller's ctx
//
// ok: detachedctx
func (c *Connect) CreateClientNearMiss(ctx context.Context, host, port string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	if err := c.handshake(ctx, conn); err != nil {
		_ = conn.Close()
		return err
	}
	c.conn = conn
	return nil
}

// ---- go-smb2-style dialer ----

type Session struct{ conn net.Conn }

type Dialer struct {
	Timeout   time.Duration
	negotiate func(ctx context.Context, c net.Conn) (*Session, error)
}

// Dial connects to an SMB server and negotiates a session.
// From: CloudSoda/go-smb2#72
// the TCP connect uses net.DialTimeout with the dialer's own timeout, so the deadline and cancellation of ctx are ignored while connecting
//
// bug: detachedctx
func (d *Dialer) Dial(ctx context.Context, addr string) (*Session, error) {
	conn, err := net.DialTimeout("tcp", addr, d.Timeout)
	if err != nil {
		return nil, err
	}
	s, err := d.negotiate(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

// DialNearMiss connects to an SMB server and negotiates a session.
// From: CloudSoda/go-smb2#72
// the connect uses a net.Dialer with the same timeout through DialContext(ctx), so both limits apply
//
// ok: detachedctx
func (d *Dialer) DialNearMiss(ctx context.Context, addr string) (*Session, error) {
	nd := net.Dialer{Timeout: d.Timeout}
	conn, err := nd.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s, err := d.negotiate(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return s, nil
}

// ---- bindery-style recommendations handler ----

type Recommender struct {
	appCtx context.Context
	wg     sync.WaitGroup
	search func(ctx context.Context, q string) error
}

// HandleRefresh kicks off a background recommendations search.
// From: vavallee/bindery#550
// the background search runs on context.Background(), so shutdown cannot stop it and it holds DB and upstream connections after the app is done
//
// bug: detachedctx
func (h *Recommender) HandleRefresh(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := h.search(ctx, q); err != nil {
			fmt.Fprintln(os.Stderr, "recommendations:", err)
		}
	}()
	w.WriteHeader(http.StatusAccepted)
}

// HandleRefreshNearMiss kicks off a background recommendations search.
// From: vavallee/bindery#550
// the search outlives the request on purpose but is derived from the app's root context held in h.appCtx, so shutdown cancels it, and h.wg tracks it
//
// ok: detachedctx
func (h *Recommender) HandleRefreshNearMiss(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(h.appCtx, 5*time.Minute)
		defer cancel()
		if err := h.search(ctx, q); err != nil {
			fmt.Fprintln(os.Stderr, "recommendations:", err)
		}
	}()
	w.WriteHeader(http.StatusAccepted)
}

// ---- sourcegraph-style codeintel worker ----

type Upload struct {
	ID    int
	State string
}

type Worker struct {
	db *sql.DB
}

// Handle marks an upload as processing and loads its dependencies.
// From: sourcegraph/sourcegraph-public-snapshot#13262
// db.Query and db.Exec have no context, so when the worker's ctx is cancelled on shutdown the queries keep running and shutdown stalls
//
// bug: detachedctx
func (w *Worker) Handle(ctx context.Context, up Upload) ([]int, error) {
	if _, err := w.db.Exec(`UPDATE lsif_uploads SET state = 'processing' WHERE id = $1`, up.ID); err != nil {
		return nil, err
	}
	rows, err := w.db.Query(`SELECT dependency_id FROM lsif_dependencies WHERE upload_id = $1`, up.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// HandleNearMiss marks an upload as processing and loads its dependencies.
// From: sourcegraph/sourcegraph-public-snapshot#13262
// ExecContext and QueryContext carry the worker's ctx
//
// ok: detachedctx
func (w *Worker) HandleNearMiss(ctx context.Context, up Upload) ([]int, error) {
	if _, err := w.db.ExecContext(ctx, `UPDATE lsif_uploads SET state = 'processing' WHERE id = $1`, up.ID); err != nil {
		return nil, err
	}
	rows, err := w.db.QueryContext(ctx, `SELECT dependency_id FROM lsif_dependencies WHERE upload_id = $1`, up.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// ---- watchdog-style GTFS client ----

type Agency struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type ObaClient struct {
	baseURL string
	http    *http.Client
}

// FetchAgencies downloads the agency list for a background refresh.
// From: OneBusAway/watchdog#143
// http.Get takes no context, so a refresh in flight keeps its connection open through shutdown and test teardown
//
// bug: detachedctx
func (c *ObaClient) FetchAgencies(ctx context.Context) ([]Agency, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := http.Get(c.baseURL + "/api/where/agencies-with-coverage.json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []Agency
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// FetchAgenciesNearMiss downloads the agency list for a background refresh.
// From: OneBusAway/watchdog#143
// the request is built with NewRequestWithContext(ctx) and sent through the client
//
// ok: detachedctx
func (c *ObaClient) FetchAgenciesNearMiss(ctx context.Context) ([]Agency, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/api/where/agencies-with-coverage.json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out []Agency
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- suspicious but correct ----

// Run is the program entry point; it creates the root context.
// Background() is the root of the context tree here and is immediately tied to SIGINT
//
// ok: detachedctx
func Run(serve func(ctx context.Context) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return serve(ctx)
}

type Job struct {
	audit func(ctx context.Context, msg string) error
}

// Finish records the audit entry even if the request was cancelled.
// the audit write must survive client disconnects, so it deliberately uses WithoutCancel(ctx) bounded by its own timeout, keeping the request's values
//
// ok: detachedctx
func (j *Job) Finish(ctx context.Context, msg string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return j.audit(ctx, msg)
}

type Store struct {
	db *sql.DB
}

// Close flushes pending state and closes the database.
// Close has no caller context; the flush uses a fresh Background() context with a short timeout on purpose so shutdown is bounded
//
// ok: detachedctx
func (s *Store) Close() error {
	// Cleanup runs after the serving context is gone; use a bounded root context.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.db.ExecContext(ctx, `CHECKPOINT`); err != nil {
		_ = s.db.Close()
		return err
	}
	return s.db.Close()
}
