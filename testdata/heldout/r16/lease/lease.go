// Package lease holds code that acquires connections, response bodies,
// database rows, contexts, timers, locks and files from a database driver,
// a metrics collector, a pipelines API, a CI worker, a token selector and a
// CI executor.
package lease

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Database driver connection pool

// connect is one open server connection.
type connect struct {
	id     int
	broken bool
}

// idlePool stores idle connections.
type idlePool interface {
	// Get returns an idle connection, nil if none is idle, or the context's
	// error if ctx ends while the pool is being inspected.
	Get(ctx context.Context) (*connect, error)
	Put(c *connect)
}

// clickhouse is the driver's connection manager. open holds one token per
// connection slot in use.
type clickhouse struct {
	open chan struct{}
	idle idlePool
	dial func(ctx context.Context) (*connect, error)
}

// newClickhouse returns a manager allowing maxOpen connections.
//
// ok: leaseleak
func newClickhouse(maxOpen int, idle idlePool, dial func(context.Context) (*connect, error)) *clickhouse {
	return &clickhouse{open: make(chan struct{}, maxOpen), idle: idle, dial: dial}
}

// release returns a connection and its slot to the manager.
//
// ok: leaseleak
func (ch *clickhouse) release(c *connect) {
	if c != nil && !c.broken {
		ch.idle.Put(c)
	}
	<-ch.open
}

// acquire reserves a connection slot, then reuses an idle connection or
// dials a new one.
//
// From: ClickHouse/clickhouse-go#1759
// bug: leaseleak
func (ch *clickhouse) acquire(ctx context.Context) (*connect, error) {
	select {
	case ch.open <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("acquire conn timeout: %w", ctx.Err())
	}
	conn, err := ch.idle.Get(ctx)
	if err != nil {
		return nil, err
	}
	if conn != nil {
		return conn, nil
	}
	conn, err = ch.dial(ctx)
	if err != nil {
		<-ch.open
		return nil, err
	}
	return conn, nil
}

// acquireNearMiss reserves a connection slot, then reuses an idle connection
// or dials a new one; the slot is handed back whenever no connection is
// returned.
//
// ok: leaseleak
func (ch *clickhouse) acquireNearMiss(ctx context.Context) (*connect, error) {
	select {
	case ch.open <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("acquire conn timeout: %w", ctx.Err())
	}
	conn, err := ch.idle.Get(ctx)
	if err != nil {
		<-ch.open
		return nil, err
	}
	if conn != nil {
		return conn, nil
	}
	conn, err = ch.dial(ctx)
	if err != nil {
		<-ch.open
		return nil, err
	}
	return conn, nil
}

// Metadata sender

// Metasend is one metadata record for a metric.
type Metasend struct {
	Metric string `json:"metric"`
	Name   string `json:"name"`
	Value  string `json:"value"`
}

// Collector posts metadata to the server.
type Collector struct {
	client *http.Client
	url    string
}

// sendMetadata posts the metadata batch and checks the server's reply.
//
// From: bosun-monitor/bosun#1476
// bug: leaseleak
func (c *Collector) sendMetadata(ctx context.Context, ms []Metasend) error {
	b, err := json.Marshal(ms)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("bad metadata return: %s", resp.Status)
	}
	return nil
}

// sendMetadataNearMiss posts the metadata batch and checks the server's
// reply, closing the response body on every path.
//
// ok: leaseleak
func (c *Collector) sendMetadataNearMiss(ctx context.Context, ms []Metasend) error {
	b, err := json.Marshal(ms)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("bad metadata return: %s", resp.Status)
	}
	return nil
}

// openEvents opens the server's event stream and returns the body for the
// caller to read and close.
//
// ok: leaseleak
func (c *Collector) openEvents(ctx context.Context) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/events", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("events: %s", resp.Status)
	}
	return resp.Body, nil
}

// Pipeline run store

// Run is one pipeline run row.
type Run struct {
	UUID        string
	DisplayName string
	State       string
	CreatedAt   int64
}

// RunStore lists runs from the pipelines database.
type RunStore struct {
	db *sql.DB
}

const listRunsQuery = `SELECT UUID, DisplayName, State, CreatedAtInSec FROM run_details WHERE Namespace = ? ORDER BY CreatedAtInSec DESC LIMIT ?`

// ListRuns returns the newest runs in the namespace.
//
// From: kubeflow/pipelines#13920
// bug: leaseleak
func (s *RunStore) ListRuns(ctx context.Context, namespace string, limit int) ([]*Run, error) {
	rows, err := s.db.QueryContext(ctx, listRunsQuery, namespace, limit)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []*Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.UUID, &r.DisplayName, &r.State, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan run: %w", err)
		}
		runs = append(runs, &r)
	}
	defer rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// ListRunsNearMiss returns the newest runs in the namespace; the rows are
// closed on every path.
//
// ok: leaseleak
func (s *RunStore) ListRunsNearMiss(ctx context.Context, namespace string, limit int) ([]*Run, error) {
	rows, err := s.db.QueryContext(ctx, listRunsQuery, namespace, limit)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var runs []*Run
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.UUID, &r.DisplayName, &r.State, &r.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan run: %w", err)
		}
		runs = append(runs, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// CountRuns counts the runs in the namespace with a single-row query.
//
// ok: leaseleak
func (s *RunStore) CountRuns(ctx context.Context, namespace string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM run_details WHERE Namespace = ?`, namespace).Scan(&n)
	return n, err
}

// Container backend

// Container is a handle to a containerd container.
type Container interface {
	ID() string
	Labels(ctx context.Context) (map[string]string, error)
}

// ContainerClient talks to containerd.
type ContainerClient interface {
	GetContainer(ctx context.Context, handle string) (Container, error)
}

// Backend serves container lookups for the worker.
type Backend struct {
	client         ContainerClient
	requestTimeout time.Duration
}

// withRequestTimeout derives a context bounded by the backend's request
// timeout and returns it with its cancel function.
//
// ok: leaseleak
func (b *Backend) withRequestTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.requestTimeout)
}

// Lookup returns the container with the given handle together with its
// labels, bounding the containerd requests by the request timeout.
//
// From: concourse/concourse#5099
// bug: leaseleak
func (b *Backend) Lookup(ctx context.Context, handle string) (Container, map[string]string, error) {
	ctx, _ = b.withRequestTimeout(ctx)
	c, err := b.client.GetContainer(ctx, handle)
	if err != nil {
		return nil, nil, fmt.Errorf("get container %s: %w", handle, err)
	}
	labels, err := c.Labels(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("labels of %s: %w", handle, err)
	}
	return c, labels, nil
}

// LookupNearMiss returns the container with the given handle together with
// its labels, bounding the containerd requests by the request timeout and
// releasing the timeout context when done.
//
// ok: leaseleak
func (b *Backend) LookupNearMiss(ctx context.Context, handle string) (Container, map[string]string, error) {
	ctx, cancel := b.withRequestTimeout(ctx)
	defer cancel()
	c, err := b.client.GetContainer(ctx, handle)
	if err != nil {
		return nil, nil, fmt.Errorf("get container %s: %w", handle, err)
	}
	labels, err := c.Labels(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("labels of %s: %w", handle, err)
	}
	return c, labels, nil
}

// Retry runner

// retryRunner retries a function with a growing delay.
type retryRunner struct {
	maxTimes     int
	initialDelay time.Duration
	maxDelay     time.Duration
}

// nextDelay returns the delay before attempt i+1.
//
// ok: leaseleak
func (r *retryRunner) nextDelay(i int) time.Duration {
	d := r.initialDelay << i
	if d <= 0 || d > r.maxDelay {
		d = r.maxDelay
	}
	return d
}

// RunWithContext calls f until it succeeds, the attempts are used up or ctx
// ends, waiting on a timer between attempts, and joins the errors seen.
//
// From: LFDT-Panurus/panurus#2126
// bug: leaseleak
func (r *retryRunner) RunWithContext(ctx context.Context, f func() error) error {
	var errs []error
	for i := 0; r.maxTimes < 0 || i < r.maxTimes; i++ {
		err := f()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		timer := time.NewTimer(r.nextDelay(i))
		select {
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		case <-timer.C:
		}
	}
	return errors.Join(errs...)
}

// RunWithContextNearMiss calls f until it succeeds, the attempts are used up
// or ctx ends, waiting on a timer between attempts that is stopped on every
// exit from the wait, and joins the errors seen.
//
// ok: leaseleak
func (r *retryRunner) RunWithContextNearMiss(ctx context.Context, f func() error) error {
	var errs []error
	for i := 0; r.maxTimes < 0 || i < r.maxTimes; i++ {
		err := f()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		timer := time.NewTimer(r.nextDelay(i))
		select {
		case <-ctx.Done():
			timer.Stop()
			return errors.Join(append(errs, ctx.Err())...)
		case <-timer.C:
		}
	}
	return errors.Join(errs...)
}

// Executor pod cache

// Pod is a running executor pod.
type Pod struct {
	ID     string
	TaskID string
}

// Driver lists pods from the container runtime.
type Driver interface {
	GetPods(ctx context.Context, all bool) ([]Pod, error)
}

// Executor caches the pods of its driver.
type Executor struct {
	driver      Driver
	podsTTL     time.Duration
	podsMu      sync.Mutex
	pods        []Pod
	podsFetched time.Time
}

// refreshPods reloads the cached pod list from the driver when it is older
// than the TTL.
//
// From: agola-io/agola#117
// bug: leaseleak
func (e *Executor) refreshPods(ctx context.Context) error {
	e.podsMu.Lock()
	if time.Since(e.podsFetched) < e.podsTTL {
		e.podsMu.Unlock()
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	pods, err := e.driver.GetPods(ctx, true)
	if err != nil {
		e.podsMu.Unlock()
		return fmt.Errorf("get pods: %w", err)
	}
	e.pods, e.podsFetched = pods, time.Now()
	e.podsMu.Unlock()
	return nil
}

// refreshPodsNearMiss reloads the cached pod list from the driver when it is
// older than the TTL, holding the cache lock for the duration of the call.
//
// ok: leaseleak
func (e *Executor) refreshPodsNearMiss(ctx context.Context) error {
	e.podsMu.Lock()
	defer e.podsMu.Unlock()
	if time.Since(e.podsFetched) < e.podsTTL {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	pods, err := e.driver.GetPods(ctx, true)
	if err != nil {
		return fmt.Errorf("get pods: %w", err)
	}
	e.pods, e.podsFetched = pods, time.Now()
	return nil
}

// PodsForTask returns the cached pods that belong to task.
//
// ok: leaseleak
func (e *Executor) PodsForTask(ctx context.Context, task string) ([]Pod, error) {
	if err := e.refreshPodsNearMiss(ctx); err != nil {
		return nil, err
	}
	e.podsMu.Lock()
	defer e.podsMu.Unlock()
	var out []Pod
	for _, p := range e.pods {
		if p.TaskID == task {
			out = append(out, p)
		}
	}
	return out, nil
}

// Acquisitions that are released by their owner

// Lease keeps content referenced while an operation uses it.
type Lease struct {
	ID      string
	release func(ctx context.Context, id string) error
}

// Leases creates content leases.
type Leases interface {
	Create(ctx context.Context) (*Lease, error)
}

// WithLease runs fn while holding a lease. The lease is released with a
// context that is not cancelled together with ctx, because cancellation is
// precisely when cleanup must still run.
//
// ok: leaseleak
func WithLease(ctx context.Context, leases Leases, fn func(ctx context.Context) error) (err error) {
	l, err := leases.Create(ctx)
	if err != nil {
		return fmt.Errorf("create lease: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if rerr := l.release(rctx, l.ID); rerr != nil && err == nil {
			err = fmt.Errorf("release lease %s: %w", l.ID, rerr)
		}
	}()
	return fn(ctx)
}

// WriteFileAtomic writes data to a temporary file next to path and renames
// it into place; the temporary file is closed and removed on every failure.
//
// ok: leaseleak
func WriteFileAtomic(ctx context.Context, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := ctx.Err(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// Deadline returns a context bounded by d for the caller, who owns the
// returned cancel function.
//
// ok: leaseleak
func Deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
