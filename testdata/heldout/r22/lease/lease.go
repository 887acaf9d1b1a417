// Package lease holds acquired resources that are not released on every
// path, above all the early returns on cancellation or error.
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
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// honeydipper/honeydipper#87: the web driver's outgoing requests.

// Message is a request the workflow engine asks the driver to send.
type Message struct {
	Method string
	URL    string
	Body   []byte
}

// Result is what the driver hands back to the workflow.
type Result struct {
	StatusCode int
	Body       []byte
}

// WebDriver sends HTTP requests on behalf of workflows.
type WebDriver struct {
	client *http.Client
}

// Send performs msg and returns the response body.
// From: honeydipper/honeydipper#87
// The body is closed only on the bad-status branch; the success path and
// a failed or cancelled read both return with the connection still held.
// bug: leaseleak
func (d *WebDriver) Send(ctx context.Context, msg *Message) (*Result, error) {
	req, err := http.NewRequestWithContext(ctx, msg.Method, msg.URL, bytes.NewReader(msg.Body))
	if err != nil {
		return nil, err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		resp.Body.Close()
		return nil, fmt.Errorf("web: %s %s: %s", msg.Method, msg.URL, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("web: reading body: %w", err)
	}
	return &Result{StatusCode: resp.StatusCode, Body: data}, nil
}

// SendClosed defers the Close right after the error check.
// From: honeydipper/honeydipper#87
// ok: leaseleak
func (d *WebDriver) SendClosed(ctx context.Context, msg *Message) (*Result, error) {
	req, err := http.NewRequestWithContext(ctx, msg.Method, msg.URL, bytes.NewReader(msg.Body))
	if err != nil {
		return nil, err
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("web: %s %s: %s", msg.Method, msg.URL, resp.Status)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("web: reading body: %w", err)
	}
	return &Result{StatusCode: resp.StatusCode, Body: data}, nil
}

// ---------------------------------------------------------------------------
// mattermost-community/focalboard#679: closing *sql.Rows on every path.

// Block is one board block.
type Block struct {
	ID       string
	ParentID string
	Type     string
	Fields   map[string]any
}

// SQLStore is the board store.
type SQLStore struct {
	db *sql.DB
}

// GetBlocksWithParent loads the children of a block.
// From: mattermost-community/focalboard#679
// Rows are closed only after a full iteration; a Scan or decode error (for
// example after the request was cancelled) returns with the rows open.
// bug: leaseleak
func (s *SQLStore) GetBlocksWithParent(ctx context.Context, parentID string) ([]Block, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, parent_id, type, fields FROM blocks WHERE parent_id = $1`, parentID)
	if err != nil {
		return nil, err
	}
	var blocks []Block
	for rows.Next() {
		var b Block
		var fields []byte
		if err := rows.Scan(&b.ID, &b.ParentID, &b.Type, &fields); err != nil {
			return nil, fmt.Errorf("scan block: %w", err)
		}
		if err := json.Unmarshal(fields, &b.Fields); err != nil {
			return nil, fmt.Errorf("block %s fields: %w", b.ID, err)
		}
		blocks = append(blocks, b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return blocks, nil
}

// GetBlocksOfType closes the rows at the allocation site.
// From: mattermost-community/focalboard#679
// ok: leaseleak
func (s *SQLStore) GetBlocksOfType(ctx context.Context, typ string) ([]Block, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, parent_id, type, fields FROM blocks WHERE type = $1`, typ)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var blocks []Block
	for rows.Next() {
		var b Block
		var fields []byte
		if err := rows.Scan(&b.ID, &b.ParentID, &b.Type, &fields); err != nil {
			return nil, fmt.Errorf("scan block: %w", err)
		}
		if err := json.Unmarshal(fields, &b.Fields); err != nil {
			return nil, fmt.Errorf("block %s fields: %w", b.ID, err)
		}
		blocks = append(blocks, b)
	}
	return blocks, rows.Err()
}

// ---------------------------------------------------------------------------
// Snowflake-Labs/sansshell#514: waiting for multi-party approval.

// ErrActionNotFound is returned for an unknown action id.
var ErrActionNotFound = errors.New("mpa: action not found")

// Action is a request awaiting approval.
type Action struct {
	ID       string
	Approved bool
	changed  chan struct{}
}

// MPAServer tracks actions awaiting approval.
type MPAServer struct {
	mu      sync.Mutex
	actions map[string]*Action
}

// WaitForApproval blocks until the action is approved or ctx ends.
// From: Snowflake-Labs/sansshell#514
// The not-found branch returns with s.mu still locked, so the next call on
// the server blocks forever.
// bug: leaseleak
func (s *MPAServer) WaitForApproval(ctx context.Context, id string) (*Action, error) {
	for {
		s.mu.Lock()
		act, ok := s.actions[id]
		if !ok {
			return nil, ErrActionNotFound
		}
		if act.Approved {
			s.mu.Unlock()
			return act, nil
		}
		changed := act.changed
		s.mu.Unlock()

		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// lookup returns the action and its change channel under the lock.
// ok: leaseleak
func (s *MPAServer) lookup(id string) (act *Action, changed <-chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	act, ok := s.actions[id]
	if !ok {
		return nil, nil, ErrActionNotFound
	}
	return act, act.changed, nil
}

// WaitForApprovalFixed takes the lock only inside lookup.
// From: Snowflake-Labs/sansshell#514
// ok: leaseleak
func (s *MPAServer) WaitForApprovalFixed(ctx context.Context, id string) (*Action, error) {
	for {
		act, changed, err := s.lookup(id)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		approved := act.Approved
		s.mu.Unlock()
		if approved {
			return act, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// ---------------------------------------------------------------------------
// grpc-ecosystem/go-grpc-middleware#203: per-attempt timeouts in the retry
// interceptor.

// Invoker performs one RPC attempt.
type Invoker func(ctx context.Context, method string, req, reply any) error

// callOptions configure the retry interceptor.
type callOptions struct {
	max            uint
	perCallTimeout time.Duration
	retriable      func(error) bool
}

type attemptKey struct{}

// perCallContext derives the context for one attempt.
// ok: leaseleak
func perCallContext(parent context.Context, opts *callOptions, attempt uint) (context.Context, context.CancelFunc) {
	var (
		ctx    context.Context
		cancel context.CancelFunc
	)
	if opts.perCallTimeout > 0 {
		ctx, cancel = context.WithTimeout(parent, opts.perCallTimeout)
	} else {
		ctx, cancel = context.WithCancel(parent)
	}
	if attempt > 0 {
		ctx = context.WithValue(ctx, attemptKey{}, attempt)
	}
	return ctx, cancel
}

// UnaryRetry retries an RPC with a fresh per-attempt timeout.
// From: grpc-ecosystem/go-grpc-middleware#203
// The attempt's cancel func runs only on the failure path; a successful
// attempt returns with its timer and context still registered on parent.
// bug: leaseleak
func UnaryRetry(parent context.Context, opts *callOptions, invoke Invoker, method string, req, reply any) error {
	var lastErr error
	for attempt := uint(0); attempt < opts.max; attempt++ {
		callCtx, cancel := perCallContext(parent, opts, attempt)
		lastErr = invoke(callCtx, method, req, reply)
		if lastErr == nil {
			return nil
		}
		cancel()
		if parent.Err() != nil {
			return parent.Err()
		}
		if !opts.retriable(lastErr) {
			return lastErr
		}
	}
	return lastErr
}

// attempt runs one attempt and always releases its context.
// ok: leaseleak
func attempt(parent context.Context, opts *callOptions, n uint, invoke Invoker, method string, req, reply any) error {
	callCtx, cancel := perCallContext(parent, opts, n)
	defer cancel()
	return invoke(callCtx, method, req, reply)
}

// UnaryRetryFixed releases every attempt's context.
// From: grpc-ecosystem/go-grpc-middleware#203
// ok: leaseleak
func UnaryRetryFixed(parent context.Context, opts *callOptions, invoke Invoker, method string, req, reply any) error {
	var lastErr error
	for n := uint(0); n < opts.max; n++ {
		lastErr = attempt(parent, opts, n, invoke, method, req, reply)
		if lastErr == nil {
			return nil
		}
		if parent.Err() != nil {
			return parent.Err()
		}
		if !opts.retriable(lastErr) {
			return lastErr
		}
	}
	return lastErr
}

// ---------------------------------------------------------------------------
// gnolang/gno#700: the blockchain reactor's pool routine.

// Pool tracks block sync progress.
type Pool interface {
	IsCaughtUp() bool
	MakeNextRequests()
}

// Reactor drives fast sync.
type Reactor struct {
	pool              Pool
	trySyncInterval   time.Duration
	switchToConsensus func()
}

// poolRoutine requests blocks until caught up or quit is closed.
// From: gnolang/gno#700
// The ticker is never stopped; every return (quit or switch to consensus)
// leaves it running for the life of the process.
// bug: leaseleak
func (r *Reactor) poolRoutine(quit <-chan struct{}) {
	trySyncTicker := time.NewTicker(r.trySyncInterval)
	for {
		select {
		case <-quit:
			return
		case <-trySyncTicker.C:
			if r.pool.IsCaughtUp() {
				r.switchToConsensus()
				return
			}
			r.pool.MakeNextRequests()
		}
	}
}

// poolRoutineStopped defers the ticker's Stop.
// From: gnolang/gno#700
// ok: leaseleak
func (r *Reactor) poolRoutineStopped(quit <-chan struct{}) {
	trySyncTicker := time.NewTicker(r.trySyncInterval)
	defer trySyncTicker.Stop()
	for {
		select {
		case <-quit:
			return
		case <-trySyncTicker.C:
			if r.pool.IsCaughtUp() {
				r.switchToConsensus()
				return
			}
			r.pool.MakeNextRequests()
		}
	}
}

// ---------------------------------------------------------------------------
// sanketplus/go-mysql-lock#9: GET_LOCK on a dedicated connection.

// Errors returned by the locker.
var (
	ErrLockNotAcquired = errors.New("mysql lock: GET_LOCK returned NULL")
	ErrMySQLTimeout    = errors.New("mysql lock: timeout waiting for lock")
)

// Lock is a held named lock; it owns its connection.
type Lock struct {
	key  string
	conn *sql.Conn
}

// Release frees the named lock and returns the connection to the pool.
// ok: leaseleak
func (l *Lock) Release(ctx context.Context) error {
	defer l.conn.Close()
	_, err := l.conn.ExecContext(ctx, "SELECT RELEASE_LOCK(?)", l.key)
	return err
}

// MysqlLocker hands out named locks.
type MysqlLocker struct {
	db *sql.DB
}

// Obtain takes the named lock, waiting up to timeout seconds.
// From: sanketplus/go-mysql-lock#9
// The dedicated connection is closed on no failure path; a cancelled wait
// (GET_LOCK returns NULL) or a timeout leaves it checked out of the pool.
// bug: leaseleak
func (l *MysqlLocker) Obtain(ctx context.Context, key string, timeout int) (*Lock, error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("mysql lock: getting connection: %w", err)
	}
	row := conn.QueryRowContext(ctx, "SELECT COALESCE(GET_LOCK(?, ?), 2)", key, timeout)
	var res int
	if err := row.Scan(&res); err != nil {
		return nil, fmt.Errorf("mysql lock: reading response: %w", err)
	}
	switch res {
	case 1:
		return &Lock{key: key, conn: conn}, nil
	case 2:
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("mysql lock: waiting for %q: %w", key, cerr)
		}
		return nil, ErrLockNotAcquired
	default:
		return nil, ErrMySQLTimeout
	}
}

// ObtainReleasing closes the connection whenever the lock is not handed out.
// From: sanketplus/go-mysql-lock#9
// ok: leaseleak
func (l *MysqlLocker) ObtainReleasing(ctx context.Context, key string, timeout int) (lock *Lock, err error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("mysql lock: getting connection: %w", err)
	}
	defer func() {
		if lock == nil {
			conn.Close()
		}
	}()
	row := conn.QueryRowContext(ctx, "SELECT COALESCE(GET_LOCK(?, ?), 2)", key, timeout)
	var res int
	if err := row.Scan(&res); err != nil {
		return nil, fmt.Errorf("mysql lock: reading response: %w", err)
	}
	switch res {
	case 1:
		return &Lock{key: key, conn: conn}, nil
	case 2:
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("mysql lock: waiting for %q: %w", key, cerr)
		}
		return nil, ErrLockNotAcquired
	default:
		return nil, ErrMySQLTimeout
	}
}
