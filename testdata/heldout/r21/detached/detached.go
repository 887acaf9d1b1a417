// Package detached holds code that already has a context but calls
// context.Background or a context-less API, so deadlines and cancellation
// stop propagating.
package detached

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os/exec"
	"time"
)

// ContractLocker renews locks on storage contracts.
type ContractLocker interface {
	KeepaliveContract(ctx context.Context, id string, lockID uint64, d time.Duration) error
	ReleaseContract(ctx context.Context, id string, lockID uint64) error
}

// contractLock keeps a contract lock alive while a worker uses it.
type contractLock struct {
	ctx      context.Context
	cancel   context.CancelFunc
	id       string
	lockID   uint64
	interval time.Duration
	locker   ContractLocker
	done     chan struct{}
}

// newContractLock binds the lock's keepalive to ctx.
//
// ok: detachedctx
func newContractLock(ctx context.Context, locker ContractLocker, id string, lockID uint64, interval time.Duration) *contractLock {
	ctx, cancel := context.WithCancel(ctx)
	return &contractLock{ctx: ctx, cancel: cancel, id: id, lockID: lockID, interval: interval, locker: locker, done: make(chan struct{})}
}

// keepaliveLoop renews the lock until the lock's context ends.
// From: SiaFoundation/renterd#827
// each renewal is sent with context.Background, so a hung renewal is not
// interrupted by the lock's context and shutdown waits on it
//
// bug: detachedctx
func (cl *contractLock) keepaliveLoop() {
	defer close(cl.done)
	t := time.NewTicker(cl.interval)
	defer t.Stop()
	for {
		select {
		case <-cl.ctx.Done():
			return
		case <-t.C:
		}
		if err := cl.locker.KeepaliveContract(context.Background(), cl.id, cl.lockID, cl.interval*2); err != nil {
			log.Printf("keepalive of contract %s failed: %v", cl.id, err)
		}
	}
}

// keepaliveLoopNearMiss renews the lock with the lock's own context.
// From: SiaFoundation/renterd#827
//
// ok: detachedctx
func (cl *contractLock) keepaliveLoopNearMiss() {
	defer close(cl.done)
	t := time.NewTicker(cl.interval)
	defer t.Stop()
	for {
		select {
		case <-cl.ctx.Done():
			return
		case <-t.C:
		}
		if err := cl.locker.KeepaliveContract(cl.ctx, cl.id, cl.lockID, cl.interval*2); err != nil {
			if cl.ctx.Err() != nil {
				return
			}
			log.Printf("keepalive of contract %s failed: %v", cl.id, err)
		}
	}
}

// Release stops the keepalive, waits for it and releases the lock.
//
// ok: detachedctx
func (cl *contractLock) Release(ctx context.Context) error {
	cl.cancel()
	<-cl.done
	return cl.locker.ReleaseContract(ctx, cl.id, cl.lockID)
}

// Entity is one record in the entity store.
type Entity map[string]string

// EntityClient queries the entity API.
type EntityClient struct {
	query func(ctx context.Context, q string) ([]Entity, error)
}

// QueryTimeout runs q with its own time limit.
// From: block/etre#88
// the timeout context is derived from context.Background instead of ctx, so
// cancelling the caller does not stop the query
//
// bug: detachedctx
func (c *EntityClient) QueryTimeout(ctx context.Context, q string, timeout time.Duration) ([]Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	entities, err := c.query(qctx, q)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	return entities, nil
}

// QueryTimeoutNearMiss runs q with its own time limit on top of the
// caller's context.
// From: block/etre#88
//
// ok: detachedctx
func (c *EntityClient) QueryTimeoutNearMiss(ctx context.Context, q string, timeout time.Duration) ([]Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	entities, err := c.query(qctx, q)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	return entities, nil
}

// TestCommand is one shell command of a test step.
type TestCommand struct {
	Script string
}

// Step is one step of a kuttl-style test.
type Step struct {
	Dir string
	Env []string
}

// RunCommands runs the step's commands in order.
// From: kudobuilder/kuttl#20
// the commands are started with exec.Command, so when the step's context
// times out the running process keeps going until it exits by itself
//
// bug: detachedctx
func (s *Step) RunCommands(ctx context.Context, cmds []TestCommand) error {
	for i, c := range cmds {
		if err := ctx.Err(); err != nil {
			return err
		}
		cmd := exec.Command("sh", "-c", c.Script)
		cmd.Dir = s.Dir
		cmd.Env = s.Env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("command %d failed: %w\n%s", i, err, out)
		}
	}
	return nil
}

// RunCommandsNearMiss runs the step's commands with exec.CommandContext so
// the process is killed when the step's context ends.
// From: kudobuilder/kuttl#20
//
// ok: detachedctx
func (s *Step) RunCommandsNearMiss(ctx context.Context, cmds []TestCommand) error {
	for i, c := range cmds {
		if err := ctx.Err(); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", c.Script)
		cmd.Dir = s.Dir
		cmd.Env = s.Env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("command %d failed: %w\n%s", i, err, out)
		}
	}
	return nil
}

// Pinger checks a database connection.
type Pinger interface {
	PingContext(ctx context.Context) error
}

// Scheduler exposes its own health endpoint.
type Scheduler struct {
	mongo       Pinger
	pingTimeout time.Duration
}

// healthHandler reports whether the scheduler's database answers.
// From: scality/Zenko#786
// the ping runs on context.Background, so a client that disconnects or a
// server shutdown does not stop a ping to a hanging database
//
// bug: detachedctx
func (s *Scheduler) healthHandler(w http.ResponseWriter, r *http.Request) {
	ctx := context.Background()
	if err := s.mongo.PingContext(ctx); err != nil {
		http.Error(w, "database unreachable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// healthHandlerNearMiss bounds the ping by the request's context and a
// timeout.
// From: scality/Zenko#786
//
// ok: detachedctx
func (s *Scheduler) healthHandlerNearMiss(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), s.pingTimeout)
	defer cancel()
	if err := s.mongo.PingContext(ctx); err != nil {
		http.Error(w, "database unreachable: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

var errHealthTimeout = errors.New("backend did not become healthy in time")

// healthProbeClient bounds a single probe.
var healthProbeClient = &http.Client{Timeout: 2 * time.Second}

// waitForHealth polls url until it answers 200 or the wait times out.
// From: kdlbs/kandev#2017
// each probe uses http.Get, which carries no context and has no timeout, so
// a backend that accepts but never answers blocks past ctx and the deadline
//
// bug: detachedctx
func waitForHealth(ctx context.Context, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		t := time.NewTimer(300 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return errHealthTimeout
}

// waitForHealthNearMiss polls url with requests bound to ctx and a bounded
// client.
// From: kdlbs/kandev#2017
//
// ok: detachedctx
func waitForHealthNearMiss(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := healthProbeClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		t := time.NewTimer(300 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%w: %w", errHealthTimeout, ctx.Err())
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Order is one customer order.
type Order struct {
	ID     int64
	Status string
}

// OrderRepo reads orders from SQL.
type OrderRepo struct {
	db *sql.DB
}

// ListByCustomer returns the orders of customerID.
// From: elgris/sqrl#9
// the query runs through db.Query, which carries no context, so a cancelled
// request keeps the query running on the server
//
// bug: detachedctx
func (r *OrderRepo) ListByCustomer(ctx context.Context, customerID int64) ([]Order, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := r.db.Query(`SELECT id, status FROM orders WHERE customer_id = $1`, customerID)
	if err != nil {
		return nil, fmt.Errorf("listing orders: %w", err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		var o Order
		if err := rows.Scan(&o.ID, &o.Status); err != nil {
			return nil, fmt.Errorf("scanning order: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// ListByCustomerNearMiss returns the orders of customerID using
// QueryContext.
// From: elgris/sqrl#9
//
// ok: detachedctx
func (r *OrderRepo) ListByCustomerNearMiss(ctx context.Context, customerID int64) ([]Order, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, status FROM orders WHERE customer_id = $1`, customerID)
	if err != nil {
		return nil, fmt.Errorf("listing orders: %w", err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		var o Order
		if err := rows.Scan(&o.ID, &o.Status); err != nil {
			return nil, fmt.Errorf("scanning order: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
