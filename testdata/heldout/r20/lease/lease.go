// Package lease holds acquired resources that are not released on every
// path.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ---------------------------------------------------------------------------
// Machine leases (superfly/flyctl#1546)

// MachineLease is an exclusive lease on a machine.
type MachineLease struct {
	MachineID string
	Nonce     string
	ExpiresAt time.Time
}

// MachinesAPI manages machines and their leases.
type MachinesAPI interface {
	AcquireLease(ctx context.Context, machineID string, ttl time.Duration) (*MachineLease, error)
	ReleaseLease(ctx context.Context, machineID, nonce string) error
	Update(ctx context.Context, machineID string, cfg map[string]string) error
}

// Deployer updates machines one at a time.
type Deployer struct {
	api     MachinesAPI
	ttl     time.Duration
	release time.Duration
}

// NewDeployer builds a deployer.
//
// ok: leaseleak
func NewDeployer(api MachinesAPI, ttl, releaseTimeout time.Duration) *Deployer {
	return &Deployer{api: api, ttl: ttl, release: releaseTimeout}
}

// UpdateMachine takes the machine lease, updates it and releases the lease.
// From: superfly/flyctl#1546
// the deferred release uses the operation context; when the user cancels
// mid-update that context is already done, ReleaseLease fails at once and the
// lease stays held until its TTL expires
//
// bug: leaseleak
func (d *Deployer) UpdateMachine(ctx context.Context, machineID string, cfg map[string]string) (err error) {
	lease, err := d.api.AcquireLease(ctx, machineID, d.ttl)
	if err != nil {
		return fmt.Errorf("acquiring lease on %s: %w", machineID, err)
	}
	defer func() {
		if rerr := d.api.ReleaseLease(ctx, machineID, lease.Nonce); rerr != nil && err == nil {
			err = fmt.Errorf("releasing lease on %s: %w", machineID, rerr)
		}
	}()
	return d.api.Update(ctx, machineID, cfg)
}

// UpdateMachineNearMiss releases the lease with a context that survives the
// caller's cancellation but is still bounded.
// From: superfly/flyctl#1546
//
// ok: leaseleak
func (d *Deployer) UpdateMachineNearMiss(ctx context.Context, machineID string, cfg map[string]string) (err error) {
	lease, err := d.api.AcquireLease(ctx, machineID, d.ttl)
	if err != nil {
		return fmt.Errorf("acquiring lease on %s: %w", machineID, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.release)
		defer cancel()
		if rerr := d.api.ReleaseLease(rctx, machineID, lease.Nonce); rerr != nil && err == nil {
			err = fmt.Errorf("releasing lease on %s: %w", machineID, rerr)
		}
	}()
	return d.api.Update(ctx, machineID, cfg)
}

// ---------------------------------------------------------------------------
// Span collector client (lightstep/lightstep-tracer-go#49)

// ReportRequest is one batch of finished spans.
type ReportRequest struct {
	Spans [][]byte
}

// collectorConn sends reports to the collector.
type collectorConn interface {
	Report(ctx context.Context, req *ReportRequest) error
}

// CollectorClient flushes span batches to a collector.
type CollectorClient struct {
	conn    collectorConn
	timeout time.Duration
}

// NewCollectorClient builds a client.
//
// ok: leaseleak
func NewCollectorClient(conn collectorConn, timeout time.Duration) *CollectorClient {
	return &CollectorClient{conn: conn, timeout: timeout}
}

// reportContext derives the per-report context.
//
// ok: leaseleak
func (c *CollectorClient) reportContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// Flush sends one batch.
// From: lightstep/lightstep-tracer-go#49
// the cancel func of the per-report timeout is discarded, so each flush leaves
// its timer and child context registered until the timeout fires
//
// bug: leaseleak
func (c *CollectorClient) Flush(ctx context.Context, spans [][]byte) error {
	if len(spans) == 0 {
		return nil
	}
	rctx, _ := c.reportContext(ctx)
	if err := c.conn.Report(rctx, &ReportRequest{Spans: spans}); err != nil {
		return fmt.Errorf("reporting %d spans: %w", len(spans), err)
	}
	return nil
}

// FlushNearMiss defers the cancel func.
// From: lightstep/lightstep-tracer-go#49
//
// ok: leaseleak
func (c *CollectorClient) FlushNearMiss(ctx context.Context, spans [][]byte) error {
	if len(spans) == 0 {
		return nil
	}
	rctx, cancel := c.reportContext(ctx)
	defer cancel()
	if err := c.conn.Report(rctx, &ReportRequest{Spans: spans}); err != nil {
		return fmt.Errorf("reporting %d spans: %w", len(spans), err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Row cursor (stephenafamo/scan#10)

// RowMapper turns a scanned row into a T.
type RowMapper[T any] func(cols []string, scan func(dest ...any) error) (T, error)

// Cursor iterates typed rows; it owns rows and closes them in Close.
type Cursor[T any] struct {
	rows *sql.Rows
	cols []string
	m    RowMapper[T]
	cur  T
	err  error
}

// CursorFromRows wraps rows in a typed cursor.
// From: stephenafamo/scan#10
// when reading the column list fails, the error path returns without closing
// rows, so the connection held by the result set is never released
//
// bug: leaseleak
func CursorFromRows[T any](rows *sql.Rows, m RowMapper[T]) (*Cursor[T], error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("reading columns: %w", err)
	}
	return &Cursor[T]{rows: rows, cols: cols, m: m}, nil
}

// CursorFromRowsNearMiss closes rows on the error path.
// From: stephenafamo/scan#10
//
// ok: leaseleak
func CursorFromRowsNearMiss[T any](rows *sql.Rows, m RowMapper[T]) (*Cursor[T], error) {
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return nil, fmt.Errorf("reading columns: %w", err)
	}
	return &Cursor[T]{rows: rows, cols: cols, m: m}, nil
}

// Next advances the cursor.
//
// ok: leaseleak
func (c *Cursor[T]) Next() bool {
	if c.err != nil || !c.rows.Next() {
		return false
	}
	c.cur, c.err = c.m(c.cols, c.rows.Scan)
	return c.err == nil
}

// Get returns the current row.
//
// ok: leaseleak
func (c *Cursor[T]) Get() T { return c.cur }

// Close releases the result set and reports any iteration error.
//
// ok: leaseleak
func (c *Cursor[T]) Close() error {
	cerr := c.rows.Close()
	return errors.Join(c.err, c.rows.Err(), cerr)
}

// ---------------------------------------------------------------------------
// Single-row helper (jmoiron/sqlx#846)

// Row is the result of QueryRow: either an error or an open result set that
// Scan consumes and closes.
type Row struct {
	rows *sql.Rows
	err  error
}

// QueryRow runs a query expected to return at most one row.
//
// ok: leaseleak
func QueryRow(ctx context.Context, db *sql.DB, query string, args ...any) *Row {
	rows, err := db.QueryContext(ctx, query, args...)
	return &Row{rows: rows, err: err}
}

// Scan copies the first row into dest and closes the result set.
//
// ok: leaseleak
func (r *Row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	return r.rows.Close()
}

// Err reports the query error without scanning.
// From: jmoiron/sqlx#846
// a caller that only checks Err never reaches Scan, and Err leaves the open
// result set in place, so its connection is not returned to the pool
//
// bug: leaseleak
func (r *Row) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rows.Err()
}

// ErrNearMiss closes the result set when the caller only wants the error.
// From: jmoiron/sqlx#846
//
// ok: leaseleak
func (r *Row) ErrNearMiss() error {
	if r.err != nil {
		return r.err
	}
	err := r.rows.Err()
	cerr := r.rows.Close()
	return errors.Join(err, cerr)
}

// ---------------------------------------------------------------------------
// Runner task claims (go-gitea/gitea#38343)

// ClaimedTask is a job assigned to a runner.
type ClaimedTask struct {
	ID    int64
	JobID int64
	Token string
}

// TaskQueue hands jobs to runners.
type TaskQueue interface {
	Claim(ctx context.Context, runnerID int64) (*ClaimedTask, error)
	Release(ctx context.Context, taskID int64) error
}

// TaskPayload is what the runner receives.
type TaskPayload struct {
	TaskID  int64
	Secrets map[string]string
	Steps   []string
}

// RunnerService answers runner FetchTask requests.
type RunnerService struct {
	queue    TaskQueue
	assemble func(ctx context.Context, t *ClaimedTask) (*TaskPayload, error)
	timeout  time.Duration
}

// NewRunnerService builds the service.
//
// ok: leaseleak
func NewRunnerService(q TaskQueue, assemble func(context.Context, *ClaimedTask) (*TaskPayload, error), releaseTimeout time.Duration) *RunnerService {
	return &RunnerService{queue: q, assemble: assemble, timeout: releaseTimeout}
}

// releaseDetached returns a claimed task to the queue even when ctx is done.
//
// ok: leaseleak
func (s *RunnerService) releaseDetached(ctx context.Context, t *ClaimedTask) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	return s.queue.Release(rctx, t.ID)
}

// FetchTask claims a job for the runner and builds its payload.
// From: go-gitea/gitea#38343
// when the request context is cancelled after the claim, the early return
// skips releasing it, so the job stays assigned to a task no runner will run
//
// bug: leaseleak
func (s *RunnerService) FetchTask(ctx context.Context, runnerID int64) (*TaskPayload, error) {
	task, err := s.queue.Claim(ctx, runnerID)
	if err != nil || task == nil {
		return nil, err
	}
	payload, err := s.assemble(ctx, task)
	if err != nil {
		return nil, errors.Join(err, s.releaseDetached(ctx, task))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return payload, nil
}

// FetchTaskNearMiss releases the claim on the cancellation path too.
// From: go-gitea/gitea#38343
//
// ok: leaseleak
func (s *RunnerService) FetchTaskNearMiss(ctx context.Context, runnerID int64) (*TaskPayload, error) {
	task, err := s.queue.Claim(ctx, runnerID)
	if err != nil || task == nil {
		return nil, err
	}
	payload, err := s.assemble(ctx, task)
	if err != nil {
		return nil, errors.Join(err, s.releaseDetached(ctx, task))
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Join(err, s.releaseDetached(ctx, task))
	}
	return payload, nil
}

// ---------------------------------------------------------------------------
// Registry blob fetch (containerd/containerd#7107)

// RegistryClient fetches blobs from an OCI registry.
type RegistryClient struct {
	http *http.Client
	base string
}

// NewRegistryClient builds a client.
//
// ok: leaseleak
func NewRegistryClient(c *http.Client, base string) *RegistryClient {
	return &RegistryClient{http: c, base: base}
}

// FetchBlob opens a blob for reading; the caller closes the returned body.
// From: containerd/containerd#7107
// on a non-200 status the function returns an error without closing the
// response body, leaking the connection
//
// bug: leaseleak
func (c *RegistryClient) FetchBlob(ctx context.Context, repo, digest string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v2/"+repo+"/blobs/"+digest, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s@%s: unexpected status %s", repo, digest, resp.Status)
	}
	return resp.Body, nil
}

// FetchBlobNearMiss closes the body before returning the status error.
// From: containerd/containerd#7107
//
// ok: leaseleak
func (c *RegistryClient) FetchBlobNearMiss(ctx context.Context, repo, digest string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v2/"+repo+"/blobs/"+digest, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("fetching %s@%s: unexpected status %s", repo, digest, resp.Status)
	}
	return resp.Body, nil
}
