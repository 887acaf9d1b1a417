// Package lease holds acquired things (cancel funcs, timers, semaphores,
// mutexes, sql rows, response bodies, spans) and whether every path
// releases them.
package lease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"heldoutr6/stub"
)

// ErrInvalid reports a bad request.
var ErrInvalid = errors.New("invalid request")

// Store runs bounded operations.
type Store struct {
	Budget time.Duration
	Run    func(ctx context.Context, q string) error
}

// Exec derives a budgeted context, but the validation return happens before
// the defer is registered, so each rejected request leaves a live timer and
// child context attached to the parent until the budget expires.
// From: ChainSafe/gossamer#1243
// bug: leaseleak
func (s *Store) Exec(ctx context.Context, q string) error {
	ctx, cancel := stub.WithBudget(ctx, s.Budget)
	if q == "" {
		return ErrInvalid
	}
	defer cancel()
	return s.Run(ctx, q)
}

// ExecDeferred defers cancel right after deriving the context.
// ok: leaseleak
func (s *Store) ExecDeferred(ctx context.Context, q string) error {
	ctx, cancel := stub.WithBudget(ctx, s.Budget)
	defer cancel()
	if q == "" {
		return ErrInvalid
	}
	return s.Run(ctx, q)
}

// Handshake arms a watchdog that closes the connection if the handshake
// takes too long. It stops the watchdog on the error returns but not on
// success, so the live connection is closed d later.
// From: coder/coder#4630
// bug: leaseleak
func Handshake(conn net.Conn, d time.Duration, hello []byte) error {
	watchdog := time.AfterFunc(d, func() { conn.Close() })
	if _, err := conn.Write(hello); err != nil {
		watchdog.Stop()
		return err
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conn, buf); err != nil {
		watchdog.Stop()
		return err
	}
	return nil
}

// HandshakeStopped stops the watchdog on every return.
// ok: leaseleak
func HandshakeStopped(conn net.Conn, d time.Duration, hello []byte) error {
	watchdog := time.AfterFunc(d, func() { conn.Close() })
	defer watchdog.Stop()
	if _, err := conn.Write(hello); err != nil {
		return err
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return err
	}
	return nil
}

// Runner executes sequences under a concurrency limit.
type Runner struct {
	Sem  *stub.Sem
	Slot func(id int) (int, error)
	Exec func(ctx context.Context, slot int) error
}

// Start acquires a slot of the semaphore and returns early without
// releasing it when no slot index is found; each such failure permanently
// shrinks the limit until everything deadlocks.
// From: ollama/ollama#10005
// bug: leaseleak
func (r *Runner) Start(ctx context.Context, id int) error {
	if err := r.Sem.Acquire(ctx); err != nil {
		return err
	}
	slot, err := r.Slot(id)
	if err != nil {
		return fmt.Errorf("find slot: %w", err)
	}
	defer r.Sem.Release()
	return r.Exec(ctx, slot)
}

// StartReleased releases the semaphore on every path.
// ok: leaseleak
func (r *Runner) StartReleased(ctx context.Context, id int) error {
	if err := r.Sem.Acquire(ctx); err != nil {
		return err
	}
	defer r.Sem.Release()
	slot, err := r.Slot(id)
	if err != nil {
		return fmt.Errorf("find slot: %w", err)
	}
	return r.Exec(ctx, slot)
}

// Registry maps names to values.
type Registry struct {
	mu sync.Mutex
	m  map[string]string
}

// Put returns early on a duplicate while still holding the mutex; the next
// caller blocks forever.
// From: ovis-hpc/ldms#772
// bug: leaseleak
func (g *Registry) Put(k, v string) error {
	g.mu.Lock()
	if _, dup := g.m[k]; dup {
		return fmt.Errorf("duplicate %q", k)
	}
	if g.m == nil {
		g.m = make(map[string]string)
	}
	g.m[k] = v
	g.mu.Unlock()
	return nil
}

// PutDeferred unlocks with defer.
// ok: leaseleak
func (g *Registry) PutDeferred(k, v string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.m[k]; dup {
		return fmt.Errorf("duplicate %q", k)
	}
	if g.m == nil {
		g.m = make(map[string]string)
	}
	g.m[k] = v
	return nil
}

// ListNames registers rows.Close only after the scan loop, so a scan error
// returns with the rows open and the pooled connection is never given back.
// From: kubeflow/pipelines#13935
// bug: leaseleak
func ListNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	defer rows.Close()
	return out, rows.Err()
}

// ListNamesClosed defers Close right after the query succeeds.
// ok: leaseleak
func ListNamesClosed(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM t")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// FetchSpec closes the body only on the 200 path; every non-200 answer
// leaks the body and its connection.
// From: google/gnostic#117
// bug: leaseleak
func FetchSpec(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: status %d", url, resp.StatusCode)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// FetchSpecClosed closes the body on every path.
// ok: leaseleak
func FetchSpecClosed(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: status %d", url, resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}

// Tracing wraps calls in spans.
type Tracing struct {
	T    *stub.Tracer
	Call func(ctx context.Context, in string) (string, error)
}

// Invoke starts a span and ends it only on success; the error return
// leaves the span open in the tracer forever.
// From: dapr/dapr#8027
// bug: leaseleak
func (t *Tracing) Invoke(ctx context.Context, in string) (string, error) {
	ctx, span := t.T.Start(ctx, "invoke")
	out, err := t.Call(ctx, in)
	if err != nil {
		span.RecordError(err)
		return "", err
	}
	span.End()
	return out, nil
}

// InvokeEnded ends the span with defer.
// ok: leaseleak
func (t *Tracing) InvokeEnded(ctx context.Context, in string) (string, error) {
	ctx, span := t.T.Start(ctx, "invoke")
	defer span.End()
	out, err := t.Call(ctx, in)
	if err != nil {
		span.RecordError(err)
		return "", err
	}
	return out, nil
}

// WaitOrTimeout stops the timer only on the value path; on the timeout path
// the timer has already fired, so there is nothing to release.
// ok: leaseleak
func WaitOrTimeout(ch <-chan int, d time.Duration) (int, error) {
	t := time.NewTimer(d)
	select {
	case v := <-ch:
		t.Stop()
		return v, nil
	case <-t.C:
		return 0, errors.New("timed out")
	}
}

// Worker owns a background loop and its cancel function.
type Worker struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// StartWorker hands the cancel function to the returned Worker, whose Stop
// calls it; not calling cancel here is the ownership transfer.
// ok: leaseleak
func StartWorker(parent context.Context, loop func(context.Context)) *Worker {
	ctx, cancel := context.WithCancel(parent)
	w := &Worker{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		loop(ctx)
	}()
	return w
}

// Stop cancels the loop and waits for it.
// ok: leaseleak
func (w *Worker) Stop() {
	w.cancel()
	<-w.done
}
