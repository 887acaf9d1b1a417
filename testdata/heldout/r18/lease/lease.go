// Package lease holds functions that acquire things that must be released.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// opCtx derives a bounded context for one connection-level operation.
//
// ok: leaseleak
func opCtx(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, d)
}

// ---- pgx-style connection close ----

type Conn struct {
	mu           sync.Mutex
	closed       bool
	closeTimeout time.Duration
	terminate    func(ctx context.Context) error
	netClose     func() error
}

// Close sends Terminate and closes the socket.
// From: jackc/pgx#456
// the already-closed early return skips cancel, so the timeout context and its timer stay alive until the deadline fires
//
// bug: leaseleak
func (c *Conn) Close() error {
	ctx, cancel := opCtx(context.Background(), c.closeTimeout)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.terminate(ctx)
	cancel()
	return errors.Join(err, c.netClose())
}

// CloseNearMiss sends Terminate and closes the socket.
// From: jackc/pgx#456
// cancel is deferred right after the context is created, so every path releases it
//
// ok: leaseleak
func (c *Conn) CloseNearMiss() error {
	ctx, cancel := opCtx(context.Background(), c.closeTimeout)
	defer cancel()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.terminate(ctx)
	return errors.Join(err, c.netClose())
}

// ---- chainstore-style store chain ----

type Store interface {
	Put(ctx context.Context, key string, val []byte) error
}

type Chain struct {
	stores  []Store
	timeout time.Duration
}

// Put writes val to every store in the chain under a per-call timeout.
// From: pressly/chainstore#22
// the cancel func of the timeout context is discarded, so each Put leaves a live timer and context until the timeout elapses
//
// bug: leaseleak
func (c *Chain) Put(ctx context.Context, key string, val []byte) error {
	ctx, _ = opCtx(ctx, c.timeout)
	for _, s := range c.stores {
		if err := s.Put(ctx, key, val); err != nil {
			return fmt.Errorf("chainstore put %s: %w", key, err)
		}
	}
	return nil
}

// PutNearMiss writes val to every store in the chain under a per-call timeout.
// From: pressly/chainstore#22
// the cancel func is kept and deferred
//
// ok: leaseleak
func (c *Chain) PutNearMiss(ctx context.Context, key string, val []byte) error {
	ctx, cancel := opCtx(ctx, c.timeout)
	defer cancel()
	for _, s := range c.stores {
		if err := s.Put(ctx, key, val); err != nil {
			return fmt.Errorf("chainstore put %s: %w", key, err)
		}
	}
	return nil
}

// ---- flate-style readiness watch ----

type State int

const (
	Pending State = iota
	Ready
	Failed
)

type Watcher struct {
	updates     chan State
	failedGrace time.Duration
}

// WatchReady waits for Ready, tolerating Failed for a grace period.
// From: home-operations/flate#400
// the grace timer is never stopped, so every Ready or cancelled return leaves it armed for the rest of the grace period
//
// bug: leaseleak
func (w *Watcher) WatchReady(ctx context.Context) (State, error) {
	grace := time.NewTimer(w.failedGrace)
	failed := false
	for {
		select {
		case st := <-w.updates:
			if st == Ready {
				return Ready, nil
			}
			failed = st == Failed
		case <-grace.C:
			if failed {
				return Failed, nil
			}
		case <-ctx.Done():
			return Pending, ctx.Err()
		}
	}
}

// WatchReadyNearMiss waits for Ready, tolerating Failed for a grace period.
// From: home-operations/flate#400
// the grace timer is stopped by a defer on every return
//
// ok: leaseleak
func (w *Watcher) WatchReadyNearMiss(ctx context.Context) (State, error) {
	grace := time.NewTimer(w.failedGrace)
	defer grace.Stop()
	failed := false
	for {
		select {
		case st := <-w.updates:
			if st == Ready {
				return Ready, nil
			}
			failed = st == Failed
		case <-grace.C:
			if failed {
				return Failed, nil
			}
		case <-ctx.Done():
			return Pending, ctx.Err()
		}
	}
}

// ---- tchannel-style client span ----

type Span struct {
	name     string
	start    time.Time
	finished bool
	err      error
}

// Helper.
//
// ok: leaseleak
func (s *Span) SetError(err error) { s.err = err }

// Helper.
//
// ok: leaseleak
func (s *Span) Finish() { s.finished = true }

type Tracer struct{}

// Helper.
//
// ok: leaseleak
func (Tracer) Start(ctx context.Context, name string) (context.Context, *Span) {
	return ctx, &Span{name: name, start: time.Now()}
}

type call struct {
	writeArgs    func(any) error
	readResponse func(any) error
}

type ThriftClient struct {
	tracer    Tracer
	startCall func(ctx context.Context, method string) (*call, error)
}

// Call performs one Thrift call inside a client span.
// From: uber/tchannel-go#922
// when writeArgs fails (for example because ctx expired) Call returns without finishing the span, so it is never reported
//
// bug: leaseleak
func (c *ThriftClient) Call(ctx context.Context, method string, req, resp any) error {
	ctx, span := c.tracer.Start(ctx, method)
	cl, err := c.startCall(ctx, method)
	if err != nil {
		span.SetError(err)
		span.Finish()
		return err
	}
	if err := cl.writeArgs(req); err != nil {
		return err
	}
	err = cl.readResponse(resp)
	span.SetError(err)
	span.Finish()
	return err
}

// CallNearMiss performs one Thrift call inside a client span.
// From: uber/tchannel-go#922
// the span is finished by a deferred closure that records whichever error ended the call
//
// ok: leaseleak
func (c *ThriftClient) CallNearMiss(ctx context.Context, method string, req, resp any) (err error) {
	ctx, span := c.tracer.Start(ctx, method)
	defer func() {
		span.SetError(err)
		span.Finish()
	}()
	cl, err := c.startCall(ctx, method)
	if err != nil {
		return err
	}
	if err := cl.writeArgs(req); err != nil {
		return err
	}
	return cl.readResponse(resp)
}

// ---- pgstream-style snapshot ----

type Snapshotter struct {
	db   *sql.DB
	emit func(table string, vals []any) error
}

// Helper.
//
// ok: leaseleak
func (s *Snapshotter) scanTable(table string, rows *sql.Rows) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := s.emit(table, vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SnapshotTables streams every row of each table.
// From: xataio/pgstream#294
// rows.Close is deferred inside the loop, so every table's rows keep their pool connection until the whole snapshot returns; with a small pool the next QueryContext blocks until ctx is cancelled
//
// bug: leaseleak
func (s *Snapshotter) SnapshotTables(ctx context.Context, tables []string) error {
	for _, t := range tables {
		rows, err := s.db.QueryContext(ctx, "SELECT * FROM "+t)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", t, err)
		}
		defer rows.Close()
		if err := s.scanTable(t, rows); err != nil {
			return fmt.Errorf("snapshot %s: %w", t, err)
		}
	}
	return nil
}

// SnapshotTablesNearMiss streams every row of each table.
// From: xataio/pgstream#294
// each table's rows are closed before the next query, on the error path as well
//
// ok: leaseleak
func (s *Snapshotter) SnapshotTablesNearMiss(ctx context.Context, tables []string) error {
	for _, t := range tables {
		rows, err := s.db.QueryContext(ctx, "SELECT * FROM "+t)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", t, err)
		}
		err = s.scanTable(t, rows)
		rows.Close()
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", t, err)
		}
	}
	return nil
}

// ---- vault-style lifetime watcher ----

type LifetimeWatcher struct {
	stopCh chan struct{}
	renew  func() (time.Duration, error)
}

// doRenew renews the lease before it expires until stopped.
// From: hashicorp/vault#18818
// a fresh timer is created each iteration and the stopCh and ctx branches return without stopping it, so the pending timer outlives the watcher
//
// bug: leaseleak
func (r *LifetimeWatcher) doRenew(ctx context.Context) error {
	for {
		ttl, err := r.renew()
		if err != nil {
			return err
		}
		timer := time.NewTimer(ttl * 2 / 3)
		select {
		case <-r.stopCh:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// doRenewNearMiss renews the lease before it expires until stopped.
// From: hashicorp/vault#18818
// the per-iteration timer is stopped on the stopCh and ctx branches
//
// ok: leaseleak
func (r *LifetimeWatcher) doRenewNearMiss(ctx context.Context) error {
	for {
		ttl, err := r.renew()
		if err != nil {
			return err
		}
		timer := time.NewTimer(ttl * 2 / 3)
		select {
		case <-r.stopCh:
			timer.Stop()
			return nil
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// ---- suspicious but correct ----

type Limiter struct{ slots chan struct{} }

// Do runs fn while holding one slot of the limiter.
// the slot is taken in a select with ctx.Done and released by defer only after it was acquired
//
// ok: leaseleak
func (l *Limiter) Do(ctx context.Context, fn func(context.Context) error) error {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-l.slots }()
	return fn(ctx)
}

type Service struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// NewService starts the service loop on a derived context.
// the cancel func is stored in the struct and called by Close
//
// ok: leaseleak
func NewService(parent context.Context, loop func(context.Context)) *Service {
	ctx, cancel := context.WithCancel(parent)
	s := &Service{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		loop(ctx)
	}()
	return s
}

// Close cancels the service loop and waits for it.
//
// ok: leaseleak
func (s *Service) Close() {
	s.cancel()
	<-s.done
}

// FetchJSON GETs url and returns the body.
// the body is closed by defer on every path after a successful Do, including non-200 responses
//
// ok: leaseleak
func FetchJSON(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
