// Package folded holds functions where context errors may lose their identity.
package folded

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
)

// ---- scany-style Get ----

type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type API struct{}

// Helper.
//
// ok: foldedtimeout
func scanOne(rows *sql.Rows, dst any) error {
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	return rows.Scan(dst)
}

// Get runs query and scans the single result row into dst.
// From: georgysavva/scany#69
// the query error is formatted with %v, so a context.Canceled from QueryContext can no longer be matched with errors.Is or == by the caller
//
// bug: foldedtimeout
func (api *API) Get(ctx context.Context, db Querier, dst any, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("scany: query one result row: %v", err)
	}
	defer rows.Close()
	if err := scanOne(rows, dst); err != nil {
		return fmt.Errorf("scany: scan row: %w", err)
	}
	return nil
}

// GetNearMiss runs query and scans the single result row into dst.
// From: georgysavva/scany#69
// the query error is wrapped with %w so errors.Is(err, context.Canceled) still holds
//
// ok: foldedtimeout
func (api *API) GetNearMiss(ctx context.Context, db Querier, dst any, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("scany: query one result row: %w", err)
	}
	defer rows.Close()
	if err := scanOne(rows, dst); err != nil {
		return fmt.Errorf("scany: scan row: %w", err)
	}
	return nil
}

// ---- consul-go-style KV fetch ----

type KeyData struct {
	Key   string
	Value []byte
}

// UnavailableError marks the agent as unreachable for a key.
type UnavailableError struct {
	Key    string
	Reason string
}

// Helper.
//
// ok: foldedtimeout
func (e *UnavailableError) Error() string { return "consul unavailable for " + e.Key + ": " + e.Reason }

type Client struct {
	addr string
	http *http.Client
}

// FetchKey reads a key from the agent's KV endpoint.
// From: segmentio/consul-go#33
// net/http wraps the context error in *url.Error, so the == comparison never matches and a cancelled request is reported as an UnavailableError that no longer carries context.Canceled
//
// bug: foldedtimeout
func (c *Client) FetchKey(ctx context.Context, key string) ([]KeyData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.addr+"/v1/kv/"+key, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if err == context.Canceled || err == context.DeadlineExceeded {
			return nil, err
		}
		return nil, &UnavailableError{Key: key, Reason: err.Error()}
	}
	defer resp.Body.Close()
	var out []KeyData
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode %s: %w", key, err)
	}
	return out, nil
}

// FetchKeyNearMiss reads a key from the agent's KV endpoint.
// From: segmentio/consul-go#33
// the context itself is consulted, so a cancelled or expired request returns ctx.Err() unchanged
//
// ok: foldedtimeout
func (c *Client) FetchKeyNearMiss(ctx context.Context, key string) ([]KeyData, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.addr+"/v1/kv/"+key, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, &UnavailableError{Key: key, Reason: err.Error()}
	}
	defer resp.Body.Close()
	var out []KeyData
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode %s: %w", key, err)
	}
	return out, nil
}

// ---- eigensdk-style BLS aggregator ----

type OperatorState struct {
	Stakes map[string]uint64
}

type AvsReader interface {
	OperatorsStateAtBlock(ctx context.Context, quorums []byte, block uint32) (OperatorState, error)
}

type BlsAggregator struct {
	reader AvsReader
	tasks  map[uint32]OperatorState
}

// InitializeTask loads the operator set for a new signing task.
// From: Layr-Labs/eigensdk-go#196
// the reader error is formatted with %s, so a deadline hit while loading operator state becomes plain text and errors.Is(err, context.DeadlineExceeded) is false
//
// bug: foldedtimeout
func (a *BlsAggregator) InitializeTask(ctx context.Context, task uint32, quorums []byte, block uint32) error {
	if _, ok := a.tasks[task]; ok {
		return fmt.Errorf("task %d already initialized", task)
	}
	state, err := a.reader.OperatorsStateAtBlock(ctx, quorums, block)
	if err != nil {
		return fmt.Errorf("failed to get operators state for task %d: %s", task, err)
	}
	a.tasks[task] = state
	return nil
}

// InitializeTaskNearMiss loads the operator set for a new signing task.
// From: Layr-Labs/eigensdk-go#196
// the reader error is wrapped with %w
//
// ok: foldedtimeout
func (a *BlsAggregator) InitializeTaskNearMiss(ctx context.Context, task uint32, quorums []byte, block uint32) error {
	if _, ok := a.tasks[task]; ok {
		return fmt.Errorf("task %d already initialized", task)
	}
	state, err := a.reader.OperatorsStateAtBlock(ctx, quorums, block)
	if err != nil {
		return fmt.Errorf("failed to get operators state for task %d: %w", task, err)
	}
	a.tasks[task] = state
	return nil
}

// ---- storj-style uplink error codes ----

const (
	CodeOK       = 0
	CodeCanceled = 1
	CodeInternal = 2
)

// errorCode maps an uplink error to the status code exposed over the C API.
// From: storj/storj#2725
// a cancellation that the stream combined or wrapped fails the == test and is reported as CodeInternal instead of CodeCanceled
//
// bug: foldedtimeout
func errorCode(err error) int {
	switch {
	case err == nil:
		return CodeOK
	case err == context.Canceled:
		return CodeCanceled
	default:
		return CodeInternal
	}
}

// errorCodeNearMiss maps an uplink error to the status code exposed over the C API.
// From: storj/storj#2725
// errors.Is sees a context.Canceled nested anywhere in the chain
//
// ok: foldedtimeout
func errorCodeNearMiss(err error) int {
	switch {
	case err == nil:
		return CodeOK
	case errors.Is(err, context.Canceled):
		return CodeCanceled
	default:
		return CodeInternal
	}
}

type Upload struct {
	w      io.WriteCloser
	commit func(context.Context) error
}

// Commit finishes an upload and returns the C status code.
//
// ok: foldedtimeout
func (u *Upload) Commit(ctx context.Context) int {
	err := errors.Join(u.w.Close(), u.commit(ctx))
	return errorCode(err)
}

// CommitNearMiss finishes an upload and returns the C status code.
//
// ok: foldedtimeout
func (u *Upload) CommitNearMiss(ctx context.Context) int {
	err := errors.Join(u.w.Close(), u.commit(ctx))
	return errorCodeNearMiss(err)
}

// ---- AuroraBoot-style artifact download ----

type Downloader struct {
	fetch func(ctx context.Context, url, dst string) error
}

// downloadOnce fetches one artifact, giving up when ctx ends.
// From: kairos-io/AuroraBoot#824
// the ctx.Done branch fabricates a "context canceled" string, so a deadline is reported as a cancel and neither matches errors.Is
//
// bug: foldedtimeout
func (d *Downloader) downloadOnce(ctx context.Context, url, dst string) error {
	done := make(chan error, 1)
	go func() { done <- d.fetch(ctx, url, dst) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = os.Remove(dst)
		return fmt.Errorf("context canceled")
	}
}

// downloadOnceNearMiss fetches one artifact, giving up when ctx ends.
// From: kairos-io/AuroraBoot#824
// the ctx.Done branch returns ctx.Err(), which is Canceled or DeadlineExceeded as appropriate
//
// ok: foldedtimeout
func (d *Downloader) downloadOnceNearMiss(ctx context.Context, url, dst string) error {
	done := make(chan error, 1)
	go func() { done <- d.fetch(ctx, url, dst) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = os.Remove(dst)
		return fmt.Errorf("download %s: %w", url, ctx.Err())
	}
}

// ---- buneary-style AMQP admin client ----

type amqpConn interface {
	DeclareExchange(ctx context.Context, name, kind string) error
	Close() error
}

type Dialer func(ctx context.Context, network, addr string) (net.Conn, error)

type Buneary struct {
	open func(ctx context.Context, url string) (amqpConn, error)
	url  string
}

// CreateExchange declares an exchange on the broker.
// From: dominikbraun/buneary#18
// both failures are wrapped with %v, so a dial or declare cut short by ctx loses context.DeadlineExceeded and the CLI cannot tell a timeout from a refused request
//
// bug: foldedtimeout
func (b *Buneary) CreateExchange(ctx context.Context, name, kind string) error {
	conn, err := b.open(ctx, b.url)
	if err != nil {
		return fmt.Errorf("error dialing RabbitMQ server: %v", err)
	}
	defer conn.Close()
	if err := conn.DeclareExchange(ctx, name, kind); err != nil {
		return fmt.Errorf("error declaring exchange %s: %v", name, err)
	}
	return nil
}

// CreateExchangeNearMiss declares an exchange on the broker.
// From: dominikbraun/buneary#18
// both failures are wrapped with %w
//
// ok: foldedtimeout
func (b *Buneary) CreateExchangeNearMiss(ctx context.Context, name, kind string) error {
	conn, err := b.open(ctx, b.url)
	if err != nil {
		return fmt.Errorf("error dialing RabbitMQ server: %w", err)
	}
	defer conn.Close()
	if err := conn.DeclareExchange(ctx, name, kind); err != nil {
		return fmt.Errorf("error declaring exchange %s: %w", name, err)
	}
	return nil
}

// ---- suspicious but correct ----

// ErrPoolClosed is returned by Pool.Get after Close.
var ErrPoolClosed = errors.New("pool closed")

type Pool struct {
	items  chan net.Conn
	closed chan struct{}
}

// Get takes a connection from the pool.
// the private sentinel is only used for the pool's own closed channel; the ctx.Done branch returns ctx.Err()
//
// ok: foldedtimeout
func (p *Pool) Get(ctx context.Context) (net.Conn, error) {
	select {
	case c := <-p.items:
		return c, nil
	case <-p.closed:
		return nil, ErrPoolClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TimeoutError records which operation ran out of time.
type TimeoutError struct {
	Op  string
	Err error
}

// Helper.
//
// ok: foldedtimeout
func (e *TimeoutError) Error() string { return e.Op + ": " + e.Err.Error() }

// Helper.
//
// ok: foldedtimeout
func (e *TimeoutError) Unwrap() error { return e.Err }

// WaitReady waits for the ready channel or for ctx.
// the custom TimeoutError carries ctx.Err() and unwraps to it, so errors.Is still finds Canceled or DeadlineExceeded
//
// ok: foldedtimeout
func WaitReady(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return &TimeoutError{Op: "wait ready", Err: ctx.Err()}
	}
}

// ParsePort parses a port setting from the environment.
// %v is used on a strconv error, which can never carry a context error
//
// ok: foldedtimeout
func ParsePort(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	v := os.Getenv(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("bad %s=%q: %v", name, v, err)
	}
	return n, nil
}
