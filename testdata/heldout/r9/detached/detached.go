// Package detached holds code that has a context but calls something that
// does not inherit it (context.Background/TODO, or a context-less API).
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Health check handler (etherlabsio/healthcheck#29)
// ---------------------------------------------------------------------------

// Checker checks one dependency.
type Checker interface {
	Check(ctx context.Context) error
}

// HealthHandler reports the state of every registered checker.
type HealthHandler struct {
	checkers map[string]Checker
	timeout  time.Duration
}

type healthResponse struct {
	Status string            `json:"status"`
	Errors map[string]string `json:"errors,omitempty"`
}

// ok: detachedctx
func (h *HealthHandler) runChecks(ctx context.Context) healthResponse {
	var mu sync.Mutex
	var wg sync.WaitGroup
	resp := healthResponse{Status: "OK", Errors: map[string]string{}}
	for name, c := range h.checkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Check(ctx); err != nil {
				mu.Lock()
				resp.Status = "Service Unavailable"
				resp.Errors[name] = err.Error()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return resp
}

// ServeHTTP runs the checks and writes the JSON report.
//
// From: etherlabsio/healthcheck#29
// bug: detachedctx
func (h *HealthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// r.Context() is ignored: when the prober drops the connection the
	// checks keep running until each of them times out.
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()

	resp := h.runChecks(ctx)
	w.Header().Set("Content-Type", "application/json")
	if resp.Status != "OK" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// HealthHandlerNearMiss is the fixed handler.
type HealthHandlerNearMiss struct {
	HealthHandler
}

// ServeHTTP runs the checks and writes the JSON report.
//
// ok: detachedctx
func (h *HealthHandlerNearMiss) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()

	resp := h.runChecks(ctx)
	w.Header().Set("Content-Type", "application/json")
	if resp.Status != "OK" {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// ---------------------------------------------------------------------------
// Circuit breaker HTTP client (rubyist/circuitbreaker#54)
// ---------------------------------------------------------------------------

// Breaker trips after consecutive failures.
type Breaker interface {
	Call(fn func() error, timeout time.Duration) error
}

// HTTPClient wraps an http.Client in a breaker.
type HTTPClient struct {
	Client  *http.Client
	Breaker Breaker
	Timeout time.Duration
}

// Do sends req through the breaker.
//
// From: rubyist/circuitbreaker#54
// bug: detachedctx
func (c *HTTPClient) Do(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	err := c.Breaker.Call(func() error {
		// A fresh context replaces the one the caller put on req, so the
		// caller's cancellation and deadline no longer reach the request.
		ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
		defer cancel()
		r, err := c.Client.Do(req.WithContext(ctx))
		if err != nil {
			return err
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		resp = r
		if r.StatusCode >= http.StatusInternalServerError {
			return fmt.Errorf("server error: %s", r.Status)
		}
		return nil
	}, 0)
	return resp, err
}

// DoNearMiss sends req through the breaker.
//
// ok: detachedctx
func (c *HTTPClient) DoNearMiss(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	err := c.Breaker.Call(func() error {
		ctx, cancel := context.WithTimeout(req.Context(), c.Timeout)
		defer cancel()
		r, err := c.Client.Do(req.WithContext(ctx))
		if err != nil {
			return err
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		resp = r
		if r.StatusCode >= http.StatusInternalServerError {
			return fmt.Errorf("server error: %s", r.Status)
		}
		return nil
	}, 0)
	return resp, err
}

// ---------------------------------------------------------------------------
// Kubernetes API client (ericchiang/k8s#49)
// ---------------------------------------------------------------------------

// K8sClient talks to the API server.
type K8sClient struct {
	Endpoint string
	Client   *http.Client
	Token    string
}

// APIStatus is the error body returned by the API server.
type APIStatus struct {
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

// ok: detachedctx
func (s *APIStatus) Error() string { return fmt.Sprintf("kubernetes api: %s (%d)", s.Message, s.Code) }

// do performs one API call and decodes the JSON answer into out.
//
// From: ericchiang/k8s#49
// bug: detachedctx
func (c *K8sClient) do(ctx context.Context, verb, path string, body io.Reader, out any) error {
	// ctx is accepted but never attached to the request.
	req, err := http.NewRequest(verb, c.Endpoint+path, body)
	if err != nil {
		return fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return fmt.Errorf("performing request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var st APIStatus
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return fmt.Errorf("%s %s: %s", verb, path, resp.Status)
		}
		return &st
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// doNearMiss performs one API call and decodes the JSON answer into out.
//
// ok: detachedctx
func (c *K8sClient) doNearMiss(ctx context.Context, verb, path string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, verb, c.Endpoint+path, body)
	if err != nil {
		return fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return fmt.Errorf("performing request: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var st APIStatus
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return fmt.Errorf("%s %s: %s", verb, path, resp.Status)
		}
		return &st
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// ---------------------------------------------------------------------------
// Replication message fetch (cadence-workflow/cadence#4265)
// ---------------------------------------------------------------------------

// ReplicationToken asks one shard for replication tasks.
type ReplicationToken struct {
	ShardID      int32
	LastRetrieve int64
}

// ReplicationMessages is the per-shard answer.
type ReplicationMessages struct {
	ShardID int32
	Tasks   [][]byte
}

// HistoryPeer fetches replication messages from one history host.
type HistoryPeer interface {
	GetReplicationMessages(ctx context.Context, tokens []ReplicationToken) ([]ReplicationMessages, error)
}

// HistoryClient fans replication requests out to history hosts.
type HistoryClient struct {
	timeout time.Duration
	peerFor func(shardID int32) HistoryPeer
}

// GetReplicationMessages collects replication messages for every token,
// keeping part of the caller's budget to return a partial answer.
//
// From: cadence-workflow/cadence#4265
// bug: detachedctx
func (c *HistoryClient) GetReplicationMessages(ctx context.Context, tokens []ReplicationToken) ([]ReplicationMessages, error) {
	now := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = now.Add(c.timeout)
	}
	requestTimeout := time.Duration(math.Ceil(float64(deadline.Sub(now)) * 0.95))
	// Only the deadline is copied over; cancellation of ctx (and its
	// values, e.g. tracing) is dropped for all peer requests.
	requestContext, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()

	byPeer := map[HistoryPeer][]ReplicationToken{}
	for _, t := range tokens {
		p := c.peerFor(t.ShardID)
		byPeer[p] = append(byPeer[p], t)
	}

	var (
		mu  sync.Mutex
		out []ReplicationMessages
		wg  sync.WaitGroup
	)
	for p, ts := range byPeer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs, err := p.GetReplicationMessages(requestContext, ts)
			if err != nil {
				return // partial result: skip this peer
			}
			mu.Lock()
			out = append(out, msgs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, nil
}

// GetReplicationMessagesNearMiss collects replication messages for every
// token, keeping part of the caller's budget to return a partial answer.
//
// ok: detachedctx
func (c *HistoryClient) GetReplicationMessagesNearMiss(ctx context.Context, tokens []ReplicationToken) ([]ReplicationMessages, error) {
	now := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = now.Add(c.timeout)
	}
	requestTimeout := time.Duration(math.Ceil(float64(deadline.Sub(now)) * 0.95))
	requestContext, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()

	byPeer := map[HistoryPeer][]ReplicationToken{}
	for _, t := range tokens {
		p := c.peerFor(t.ShardID)
		byPeer[p] = append(byPeer[p], t)
	}

	var (
		mu  sync.Mutex
		out []ReplicationMessages
		wg  sync.WaitGroup
	)
	for p, ts := range byPeer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs, err := p.GetReplicationMessages(requestContext, ts)
			if err != nil {
				return
			}
			mu.Lock()
			out = append(out, msgs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Git worktree tool (genai-io/gen-code#368)
// ---------------------------------------------------------------------------

// Worktree manages an isolated git worktree for an agent turn.
type Worktree struct {
	RepoDir string
	Path    string
}

// HasUncommittedChanges reports whether the worktree has local changes.
//
// From: genai-io/gen-code#368
// bug: detachedctx
func (w *Worktree) HasUncommittedChanges(ctx context.Context) (bool, error) {
	// exec.Command ignores ctx: pressing Esc does not stop a `git status`
	// that is blocked on an LFS smudge filter or an index lock.
	cmd := exec.Command("git", "status", "--porcelain")
	cmd.Dir = w.Path
	out, err := cmd.Output()
	if err != nil {
		return false, fmt.Errorf("git status: %w", err)
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// HasUncommittedChangesNearMiss reports whether the worktree has local
// changes.
//
// ok: detachedctx
func (w *Worktree) HasUncommittedChangesNearMiss(ctx context.Context) (bool, error) {
	cmd := exec.CommandContext(ctx, "git", "status", "--porcelain")
	cmd.Dir = w.Path
	out, err := cmd.Output()
	if err != nil {
		return false, fmt.Errorf("git status: %w", err)
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// Create adds the worktree. If the turn is canceled half-way, the returned
// error is accompanied by a cleanup that must still run, so cleanup gets its
// own bounded context detached from the canceled one.
//
// ok: detachedctx
func (w *Worktree) Create(ctx context.Context) (cleanup func(), err error) {
	cmd := exec.CommandContext(ctx, "git", "worktree", "add", "--detach", w.Path)
	cmd.Dir = w.RepoDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("git worktree add: %w: %s", err, out)
	}
	cleanup = func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		rm := exec.CommandContext(cctx, "git", "worktree", "remove", "--force", w.Path)
		rm.Dir = w.RepoDir
		_ = rm.Run()
	}
	return cleanup, nil
}

// ---------------------------------------------------------------------------
// Upstream DNS resolver (0xERR0R/blocky#1952)
// ---------------------------------------------------------------------------

// UpstreamResolver forwards queries to one upstream server.
type UpstreamResolver struct {
	host    string
	port    string
	timeout time.Duration
}

// Resolve sends the packed DNS query msg and returns the packed answer.
//
// From: 0xERR0R/blocky#1952
// bug: detachedctx
func (r *UpstreamResolver) Resolve(ctx context.Context, msg []byte) ([]byte, error) {
	// net.DialTimeout knows nothing about ctx: a canceled request still
	// waits for the full dial timeout against an unreachable upstream.
	conn, err := net.DialTimeout("udp", net.JoinHostPort(r.host, r.port), r.timeout)
	if err != nil {
		return nil, fmt.Errorf("dial upstream %s: %w", r.host, err)
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	buf := make([]byte, 65535)
	n, err := conn.Read(buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// ResolveNearMiss sends the packed DNS query msg and returns the answer.
//
// ok: detachedctx
func (r *UpstreamResolver) ResolveNearMiss(ctx context.Context, msg []byte) ([]byte, error) {
	d := net.Dialer{Timeout: r.timeout}
	conn, err := d.DialContext(ctx, "udp", net.JoinHostPort(r.host, r.port))
	if err != nil {
		return nil, fmt.Errorf("dial upstream %s: %w", r.host, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write(msg); err != nil {
		return nil, err
	}
	buf := make([]byte, 65535)
	n, err := conn.Read(buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// ---------------------------------------------------------------------------
// Parallel relationship dispatch (authzed/spicedb#2370)
// ---------------------------------------------------------------------------

type traceIDKey struct{}

// Relationship is one tuple returned by the datastore.
type Relationship struct {
	Resource, Relation, Subject string
}

// Datastore serves reverse relationship queries.
type Datastore interface {
	ReverseQueryRelationships(ctx context.Context, subject string) ([]Relationship, error)
}

// Dispatcher resolves LookupResources by fanning out per subject.
type Dispatcher struct {
	ds Datastore
}

// DispatchLookup runs one reverse query per subject in parallel.
//
// From: authzed/spicedb#2370
// bug: detachedctx
func (d *Dispatcher) DispatchLookup(ctx context.Context, subjects []string) ([]Relationship, error) {
	// The child context is rebuilt from Background with only the trace ID
	// copied over, severing cancellation: when the client goes away (or a
	// limit is reached) the reverse queries keep running to completion.
	childCtx, cancelDispatch := context.WithCancelCause(
		context.WithValue(context.Background(), traceIDKey{}, ctx.Value(traceIDKey{})))
	defer cancelDispatch(nil)

	type result struct {
		rels []Relationship
		err  error
	}
	results := make(chan result, len(subjects))
	for _, s := range subjects {
		go func() {
			rels, err := d.ds.ReverseQueryRelationships(childCtx, s)
			results <- result{rels, err}
		}()
	}
	var out []Relationship
	for range subjects {
		r := <-results
		if r.err != nil {
			cancelDispatch(r.err)
			return nil, r.err
		}
		out = append(out, r.rels...)
	}
	return out, nil
}

// DispatchLookupNearMiss runs one reverse query per subject in parallel.
//
// ok: detachedctx
func (d *Dispatcher) DispatchLookupNearMiss(ctx context.Context, subjects []string) ([]Relationship, error) {
	childCtx, cancelDispatch := context.WithCancelCause(ctx)
	defer cancelDispatch(nil)

	type result struct {
		rels []Relationship
		err  error
	}
	results := make(chan result, len(subjects))
	for _, s := range subjects {
		go func() {
			rels, err := d.ds.ReverseQueryRelationships(childCtx, s)
			results <- result{rels, err}
		}()
	}
	var out []Relationship
	for range subjects {
		r := <-results
		if r.err != nil {
			cancelDispatch(r.err)
			return nil, r.err
		}
		out = append(out, r.rels...)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Workflow run listing (hatchet-dev/hatchet#1264)
// ---------------------------------------------------------------------------

// WorkflowRun is one row of the runs view.
type WorkflowRun struct {
	ID        string
	Status    string
	CreatedAt time.Time
}

// RunRepository queries workflow runs.
type RunRepository struct {
	db *sql.DB
}

// ListWorkflowRuns returns the runs of a tenant matching status.
//
// From: hatchet-dev/hatchet#1264
// bug: detachedctx
func (r *RunRepository) ListWorkflowRuns(ctx context.Context, tenantID, status string, limit int) ([]WorkflowRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// db.Query (no Context): a dashboard request that was canceled leaves
	// this potentially minute-long aggregate running on the database.
	rows, err := r.db.Query(
		`SELECT id, status, created_at FROM workflow_runs
		 WHERE tenant_id = $1 AND ($2 = '' OR status = $2)
		 ORDER BY created_at DESC LIMIT $3`, tenantID, status, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []WorkflowRun
	for rows.Next() {
		var wr WorkflowRun
		if err := rows.Scan(&wr.ID, &wr.Status, &wr.CreatedAt); err != nil {
			return nil, err
		}
		runs = append(runs, wr)
	}
	return runs, rows.Err()
}

// ListWorkflowRunsNearMiss returns the runs of a tenant matching status.
//
// ok: detachedctx
func (r *RunRepository) ListWorkflowRunsNearMiss(ctx context.Context, tenantID, status string, limit int) ([]WorkflowRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := r.db.QueryContext(ctx,
		`SELECT id, status, created_at FROM workflow_runs
		 WHERE tenant_id = $1 AND ($2 = '' OR status = $2)
		 ORDER BY created_at DESC LIMIT $3`, tenantID, status, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []WorkflowRun
	for rows.Next() {
		var wr WorkflowRun
		if err := rows.Scan(&wr.ID, &wr.Status, &wr.CreatedAt); err != nil {
			return nil, err
		}
		runs = append(runs, wr)
	}
	return runs, rows.Err()
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// Daemon is the process-level service.
type Daemon struct {
	db *sql.DB
}

// Open is called from main, before any request exists; there is no caller
// context to inherit, so Background is the root.
//
// ok: detachedctx
func Open(dsn string, timeout time.Duration) (*Daemon, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &Daemon{db: db}, nil
}

// AuditLogger records audit events.
type AuditLogger struct {
	write func(ctx context.Context, event string) error
	wg    sync.WaitGroup
}

// RecordAsync writes the audit event after the request has finished. The
// write must survive the request's cancellation, so it is deliberately
// detached with WithoutCancel (keeping values for tracing) and bounded by
// its own timeout; Close waits for it.
//
// ok: detachedctx
func (a *AuditLogger) RecordAsync(ctx context.Context, event string) {
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer cancel()
		_ = a.write(bg, event)
	}()
}

// Close waits for pending audit writes.
// ok: detachedctx
func (a *AuditLogger) Close() { a.wg.Wait() }

// FetchRobots has no context parameter and no caller context: it is a
// one-shot CLI helper, so the context-less http.Get is what it can use.
//
// ok: detachedctx
func FetchRobots(site string) (string, error) {
	u := url.URL{Scheme: "https", Host: site, Path: "/robots.txt"}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(u.String())
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return string(b), err
}

// ExportRows streams a query result with the caller's context; a
// context-aware query is used throughout.
//
// ok: detachedctx
func ExportRows(ctx context.Context, db *sql.DB, w io.Writer) error {
	rows, err := db.QueryContext(ctx, "SELECT id, status FROM workflow_runs ORDER BY id")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, st string
		if err := rows.Scan(&id, &st); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s,%s\n", id, st); err != nil {
			return err
		}
	}
	return rows.Err()
}
