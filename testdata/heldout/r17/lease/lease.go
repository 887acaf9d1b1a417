// Package lease collects the resource-handling code of a workflow engine, a
// transaction manager, a time-series client, a rollup blob client, an xDS
// config server and a bounded single-flight executor.
package lease

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

// Logger is the minimal logging interface used below.
type Logger interface {
	Printf(format string, args ...any)
}

// DeferRollback rolls tx back at the end of a unit of work; it is meant to
// be deferred right after the transaction starts. Rolling back an already
// committed transaction is a no-op.
// From: hatchet-dev/hatchet#4364
// bug: leaseleak
func DeferRollback(ctx context.Context, l Logger, tx *sql.Tx) {
	if ctx.Err() != nil {
		// the request is gone; nothing useful to log
		return
	}
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		l.Printf("could not roll back transaction: %v", err)
	}
}

// DeferRollbackNearMiss rolls tx back at the end of a unit of work; it is
// meant to be deferred right after the transaction starts. Rolling back an
// already committed transaction is a no-op.
// ok: leaseleak
func DeferRollbackNearMiss(ctx context.Context, l Logger, tx *sql.Tx) {
	err := tx.Rollback()
	if err == nil || errors.Is(err, sql.ErrTxDone) {
		return
	}
	if ctx.Err() != nil {
		// the request is gone; the error only restates that
		return
	}
	l.Printf("could not roll back transaction: %v", err)
}

// StepRepo stores workflow steps.
type StepRepo struct {
	db  *sql.DB
	log Logger
}

// NewStepRepo returns a repository over db.
// ok: leaseleak
func NewStepRepo(db *sql.DB, l Logger) *StepRepo {
	return &StepRepo{db: db, log: l}
}

// CreateStep inserts a step and its first event in one transaction.
// ok: leaseleak
func (r *StepRepo) CreateStep(ctx context.Context, runID, name string) (int64, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer DeferRollbackNearMiss(ctx, r.log, tx)
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO steps (run_id, name) VALUES ($1, $2) RETURNING id`, runID, name).Scan(&id); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO step_events (step_id, kind) VALUES ($1, 'created')`, id); err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// ListSteps returns the names of the steps of run.
// ok: leaseleak
func (r *StepRepo) ListSteps(ctx context.Context, runID string) ([]string, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT name FROM steps WHERE run_id = $1 ORDER BY id`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// Settings configures a managed transaction.
type Settings struct {
	Timeout  time.Duration
	ReadOnly bool
}

// Closer ends a managed transaction.
type Closer interface {
	Commit() error
	Rollback() error
}

// txCloser commits or rolls back a transaction and then releases its
// context.
type txCloser struct {
	tx     *sql.Tx
	cancel context.CancelFunc
}

// Commit commits the transaction and releases its context.
// ok: leaseleak
func (c *txCloser) Commit() error {
	defer c.cancel()
	return c.tx.Commit()
}

// Rollback rolls the transaction back and releases its context.
// ok: leaseleak
func (c *txCloser) Rollback() error {
	defer c.cancel()
	return c.tx.Rollback()
}

// Manager starts transactions whose lifetime is bound to a derived context.
type Manager struct {
	db *sql.DB
}

// NewManager returns a manager over db.
// ok: leaseleak
func NewManager(db *sql.DB) *Manager {
	return &Manager{db: db}
}

// Init starts a transaction and returns the context it is bound to together
// with its closer.
// From: avito-tech/go-transaction-manager#174
// bug: leaseleak
func (m *Manager) Init(ctx context.Context, s Settings) (context.Context, Closer, error) {
	cl := &txCloser{}
	if s.Timeout > 0 {
		ctx, cl.cancel = context.WithTimeout(ctx, s.Timeout)
	} else {
		ctx, cl.cancel = context.WithCancel(ctx)
	}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.ReadOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("begin transaction: %w", err)
	}
	cl.tx = tx
	return ctx, cl, nil
}

// InitNearMiss starts a transaction and returns the context it is bound to
// together with its closer.
// ok: leaseleak
func (m *Manager) InitNearMiss(ctx context.Context, s Settings) (context.Context, Closer, error) {
	cl := &txCloser{}
	if s.Timeout > 0 {
		ctx, cl.cancel = context.WithTimeout(ctx, s.Timeout)
	} else {
		ctx, cl.cancel = context.WithCancel(ctx)
	}
	tx, err := m.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.ReadOnly})
	if err != nil {
		cl.cancel()
		return nil, nil, fmt.Errorf("begin transaction: %w", err)
	}
	cl.tx = tx
	return ctx, cl, nil
}

// WithBudget returns a context limited to d and the function that releases
// it; the caller owns the cancel function.
// ok: leaseleak
func WithBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// Endpoint is one server of a time-series cluster.
type Endpoint struct {
	URL     string
	mu      sync.Mutex
	healthy bool
}

// setHealthy records the result of a health probe.
// ok: leaseleak
func (e *Endpoint) setHealthy(ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.healthy = ok
}

// TSClient writes and queries points on a set of endpoints.
type TSClient struct {
	endpoints []*Endpoint
	probe     func(ctx context.Context, url string) error
	interval  time.Duration
	wg        sync.WaitGroup
}

// NewTSClient returns a client for urls that probes them every interval.
// ok: leaseleak
func NewTSClient(urls []string, interval time.Duration, probe func(context.Context, string) error) *TSClient {
	c := &TSClient{probe: probe, interval: interval}
	for _, u := range urls {
		c.endpoints = append(c.endpoints, &Endpoint{URL: u, healthy: true})
	}
	return c
}

// checkAll probes every endpoint once.
// ok: leaseleak
func (c *TSClient) checkAll(ctx context.Context) {
	for _, e := range c.endpoints {
		pctx, cancel := context.WithTimeout(ctx, c.interval/2)
		err := c.probe(pctx, e.URL)
		cancel()
		e.setHealthy(err == nil)
	}
}

// healthLoop probes the endpoints on every tick until ctx ends.
// From: openGemini/opengemini-client-go#51
// bug: leaseleak
func (c *TSClient) healthLoop(ctx context.Context) {
	defer c.wg.Done()
	ticker := time.NewTicker(c.interval)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			c.checkAll(ctx)
		}
	}
}

// healthLoopNearMiss probes the endpoints on every tick until ctx ends.
// ok: leaseleak
func (c *TSClient) healthLoopNearMiss(ctx context.Context) {
	defer c.wg.Done()
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			c.checkAll(ctx)
		}
	}
}

// StartHealthCheck runs the probe loop until ctx ends; Wait returns once it
// has stopped.
// ok: leaseleak
func (c *TSClient) StartHealthCheck(ctx context.Context) {
	c.wg.Add(1)
	go c.healthLoopNearMiss(ctx)
}

// Wait blocks until the probe loop has stopped.
// ok: leaseleak
func (c *TSClient) Wait() { c.wg.Wait() }

// BlobClient reads blob sidecars from a beacon node REST API.
type BlobClient struct {
	base       string
	httpClient *http.Client
}

// NewBlobClient returns a client for the beacon node at base.
// ok: leaseleak
func NewBlobClient(base string, c *http.Client) *BlobClient {
	return &BlobClient{base: base, httpClient: c}
}

// beaconRequest fetches path and decodes the "data" member into out.
// From: OffchainLabs/nitro#3756
// bug: leaseleak
func (b *BlobClient) beaconRequest(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := b.httpClient.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("beacon %s: status %d: %s", path, resp.StatusCode, body)
	}
	defer resp.Body.Close()
	var envelope struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&envelope); err != nil {
		return err
	}
	return json.Unmarshal(envelope.Data, out)
}

// beaconRequestNearMiss fetches path and decodes the "data" member into out.
// ok: leaseleak
func (b *BlobClient) beaconRequestNearMiss(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := b.httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("beacon %s: status %d: %s", path, resp.StatusCode, body)
	}
	var envelope struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&envelope); err != nil {
		return err
	}
	return json.Unmarshal(envelope.Data, out)
}

// Snapshot is one versioned xDS configuration.
type Snapshot struct {
	Version   string
	Resources map[string][]byte
}

// session is one connected xDS client.
type session struct {
	node string
	ch   chan Snapshot
}

// XDSManager pushes configuration snapshots to connected sessions.
type XDSManager struct {
	sessionsMu sync.Mutex
	sessions   map[*session]struct{}
	current    Snapshot
}

// NewXDSManager returns a manager without sessions.
// ok: leaseleak
func NewXDSManager() *XDSManager {
	return &XDSManager{sessions: make(map[*session]struct{})}
}

// Connect registers a session for node and returns the channel it reads.
// ok: leaseleak
func (m *XDSManager) Connect(node string) (<-chan Snapshot, func()) {
	s := &session{node: node, ch: make(chan Snapshot)}
	m.sessionsMu.Lock()
	m.sessions[s] = struct{}{}
	m.sessionsMu.Unlock()
	return s.ch, func() {
		m.sessionsMu.Lock()
		defer m.sessionsMu.Unlock()
		delete(m.sessions, s)
	}
}

// notify hands snap to every session, giving up when ctx ends.
// From: jrockway/ekglue#14
// bug: leaseleak
func (m *XDSManager) notify(ctx context.Context, snap Snapshot) error {
	m.sessionsMu.Lock()
	m.current = snap
	for s := range m.sessions {
		select {
		case s.ch <- snap:
		case <-ctx.Done():
			return fmt.Errorf("change notification timed out: %w", ctx.Err())
		}
	}
	m.sessionsMu.Unlock()
	return nil
}

// notifyNearMiss hands snap to every session, giving up when ctx ends.
// ok: leaseleak
func (m *XDSManager) notifyNearMiss(ctx context.Context, snap Snapshot) error {
	m.sessionsMu.Lock()
	defer m.sessionsMu.Unlock()
	m.current = snap
	for s := range m.sessions {
		select {
		case s.ch <- snap:
		case <-ctx.Done():
			return fmt.Errorf("change notification timed out: %w", ctx.Err())
		}
	}
	return nil
}

// SingleFlight runs a function for each token that is not already being
// processed, with at most a fixed number running at once.
type SingleFlight struct {
	mu        sync.Mutex
	inflight  map[string]struct{}
	semaphore chan struct{}
	calls     sync.WaitGroup
}

// NewSingleFlight returns an executor running at most maxConcurrent calls.
// ok: leaseleak
func NewSingleFlight(maxConcurrent int) *SingleFlight {
	return &SingleFlight{inflight: make(map[string]struct{}), semaphore: make(chan struct{}, maxConcurrent)}
}

// claim marks the tokens that are not in flight and returns them.
// ok: leaseleak
func (w *SingleFlight) claim(tokens []string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, t := range tokens {
		if _, busy := w.inflight[t]; !busy {
			w.inflight[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// unclaim releases tokens.
// ok: leaseleak
func (w *SingleFlight) unclaim(tokens ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range tokens {
		delete(w.inflight, t)
	}
}

// ForEachNotInFlight calls f for every token that is not in flight and
// returns the joined errors of the calls.
// From: grafana/dskit#214
// bug: leaseleak
func (w *SingleFlight) ForEachNotInFlight(ctx context.Context, tokens []string, f func(context.Context, string) error) error {
	claimed := w.claim(tokens)
	var (
		errs    []error
		errsMu  sync.Mutex
		workers sync.WaitGroup
	)
	for _, token := range claimed {
		select {
		case <-ctx.Done():
			workers.Wait()
			return errors.Join(append(errs, ctx.Err())...)
		case w.semaphore <- struct{}{}:
		}
		workers.Add(1)
		w.calls.Add(1)
		go func() {
			defer w.calls.Done()
			defer workers.Done()
			defer func() { <-w.semaphore }()
			defer w.unclaim(token)
			if err := f(ctx, token); err != nil {
				errsMu.Lock()
				errs = append(errs, err)
				errsMu.Unlock()
			}
		}()
	}
	workers.Wait()
	return errors.Join(errs...)
}

// ForEachNotInFlightNearMiss calls f for every token that is not in flight
// and returns the joined errors of the calls.
// ok: leaseleak
func (w *SingleFlight) ForEachNotInFlightNearMiss(ctx context.Context, tokens []string, f func(context.Context, string) error) error {
	claimed := w.claim(tokens)
	var (
		errs    []error
		errsMu  sync.Mutex
		workers sync.WaitGroup
	)
	for i, token := range claimed {
		select {
		case <-ctx.Done():
			w.unclaim(claimed[i:]...)
			workers.Wait()
			return errors.Join(append(errs, ctx.Err())...)
		case w.semaphore <- struct{}{}:
		}
		workers.Add(1)
		w.calls.Add(1)
		go func() {
			defer w.calls.Done()
			defer workers.Done()
			defer func() { <-w.semaphore }()
			defer w.unclaim(token)
			if err := f(ctx, token); err != nil {
				errsMu.Lock()
				errs = append(errs, err)
				errsMu.Unlock()
			}
		}()
	}
	workers.Wait()
	return errors.Join(errs...)
}

// Wait returns when no call started by the executor is running.
// ok: leaseleak
func (w *SingleFlight) Wait() { w.calls.Wait() }

// WithSlot runs fn while holding a slot of sem; the slot is released only
// if it was acquired.
// ok: leaseleak
func WithSlot(ctx context.Context, sem chan struct{}, fn func() error) error {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-sem }()
	return fn()
}

// WriteReport writes v as indented JSON to path; the deferred closure
// closes the file and keeps its error.
// ok: leaseleak
func WriteReport(ctx context.Context, path string, v any) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WaitOrWarn waits for done and logs once if it takes longer than warnAfter;
// the warning timer is stopped on every return.
// ok: leaseleak
func WaitOrWarn(ctx context.Context, done <-chan struct{}, warnAfter time.Duration, what string) error {
	t := time.AfterFunc(warnAfter, func() { log.Printf("still waiting for %s", what) })
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Publish stores snap as current under the session lock, giving up early
// when ctx has already ended.
// ok: leaseleak
func (m *XDSManager) Publish(ctx context.Context, snap Snapshot) error {
	m.sessionsMu.Lock()
	defer m.sessionsMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	m.current = snap
	return nil
}
