// Package folded holds code where context.Canceled and
// context.DeadlineExceeded lose their identity on the way up.
package folded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// DB is a thin struct-scanning layer over database/sql.
type DB struct {
	sql     *sql.DB
	dialect string
}

// NewDB wraps db for dialect.
//
// ok: foldedtimeout
func NewDB(db *sql.DB, dialect string) *DB {
	return &DB{sql: db, dialect: dialect}
}

// QueryOne scans the single row returned by query into dest.
// From: VinGarcia/ksql#31
// the driver error is formatted with %s, so a cancelled or timed-out query
// no longer matches errors.Is(err, context.Canceled/DeadlineExceeded)
//
// bug: foldedtimeout
func (db *DB) QueryOne(ctx context.Context, query string, dest []any, params ...any) error {
	err := db.sql.QueryRowContext(ctx, query, params...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("ksql(%s): no rows for query: %w", db.dialect, err)
	}
	if err != nil {
		return fmt.Errorf("ksql(%s): error running query: %s", db.dialect, err)
	}
	return nil
}

// QueryOneNearMiss scans the single row returned by query into dest and
// wraps driver errors with %w.
// From: VinGarcia/ksql#31
//
// ok: foldedtimeout
func (db *DB) QueryOneNearMiss(ctx context.Context, query string, dest []any, params ...any) error {
	err := db.sql.QueryRowContext(ctx, query, params...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("ksql(%s): no rows for query: %w", db.dialect, err)
	}
	if err != nil {
		return fmt.Errorf("ksql(%s): error running query: %w", db.dialect, err)
	}
	return nil
}

// errShutdown is the cause given when a Poller is stopped.
var errShutdown = errors.New("poller shut down")

// Poller waits for jobs until its owner stops it.
type Poller struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	jobs   chan string
}

// NewPoller derives the poller's lifetime from parent.
//
// ok: foldedtimeout
func NewPoller(parent context.Context) *Poller {
	ctx, cancel := context.WithCancelCause(parent)
	return &Poller{ctx: ctx, cancel: cancel, jobs: make(chan string)}
}

// Stop ends the poller with errShutdown as the cause.
//
// ok: foldedtimeout
func (p *Poller) Stop() {
	p.cancel(errShutdown)
}

// Next returns the next job.
// From: golang/go#79501
// on stop it returns context.Cause, which is errShutdown and does not match
// context.Canceled, so callers that treat cancellation as a clean stop log a
// failure instead
//
// bug: foldedtimeout
func (p *Poller) Next() (string, error) {
	select {
	case job := <-p.jobs:
		return job, nil
	case <-p.ctx.Done():
		return "", context.Cause(p.ctx)
	}
}

// NextNearMiss returns the next job and, on stop, an error that matches both
// ctx.Err() and the cancel cause.
// From: golang/go#79501
//
// ok: foldedtimeout
func (p *Poller) NextNearMiss() (string, error) {
	select {
	case job := <-p.jobs:
		return job, nil
	case <-p.ctx.Done():
		return "", fmt.Errorf("%w: %w", p.ctx.Err(), context.Cause(p.ctx))
	}
}

// LookupError reports a failed name lookup with the cause as text.
type LookupError struct {
	Name   string
	Server string
	Err    string
}

// Error renders the lookup failure.
//
// ok: foldedtimeout
func (e *LookupError) Error() string {
	return "lookup " + e.Name + " on " + e.Server + ": " + e.Err
}

// WrappedLookupError reports a failed name lookup and keeps the cause.
type WrappedLookupError struct {
	Name   string
	Server string
	Err    error
}

// Error renders the lookup failure.
//
// ok: foldedtimeout
func (e *WrappedLookupError) Error() string {
	return "lookup " + e.Name + " on " + e.Server + ": " + e.Err.Error()
}

// Unwrap exposes the cause.
//
// ok: foldedtimeout
func (e *WrappedLookupError) Unwrap() error {
	return e.Err
}

// Exchanger sends one DNS query to server.
type Exchanger interface {
	Exchange(ctx context.Context, server, name string) ([]net.IP, error)
}

// Resolver tries its servers in order.
type Resolver struct {
	servers []string
	ex      Exchanger
}

// LookupHost resolves name against each server until one answers.
// From: golang/go#63116
// the exchange error is flattened to a string in LookupError, so a caller's
// deadline or cancellation can no longer be recognised with errors.Is
//
// bug: foldedtimeout
func (r *Resolver) LookupHost(ctx context.Context, name string) ([]net.IP, error) {
	var lastErr error
	for _, server := range r.servers {
		ips, err := r.ex.Exchange(ctx, server, name)
		if err == nil {
			return ips, nil
		}
		lastErr = &LookupError{Name: name, Server: server, Err: err.Error()}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

// LookupHostNearMiss resolves name against each server and keeps the
// exchange error in the chain.
// From: golang/go#63116
//
// ok: foldedtimeout
func (r *Resolver) LookupHostNearMiss(ctx context.Context, name string) ([]net.IP, error) {
	var lastErr error
	for _, server := range r.servers {
		ips, err := r.ex.Exchange(ctx, server, name)
		if err == nil {
			return ips, nil
		}
		lastErr = &WrappedLookupError{Name: name, Server: server, Err: err}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

// Code is an RPC status code.
type Code int

// Status codes used by the exec service.
const (
	CodeUnknown Code = iota
	CodeCanceled
	CodeDeadlineExceeded
	CodeInvalidArgument
)

// StatusError is an RPC error with a code.
type StatusError struct {
	Code Code
	Msg  string
	Err  error
}

// Error renders the status.
//
// ok: foldedtimeout
func (e *StatusError) Error() string {
	return fmt.Sprintf("rpc error: code = %d desc = %s", e.Code, e.Msg)
}

// Unwrap exposes the underlying error, if kept.
//
// ok: foldedtimeout
func (e *StatusError) Unwrap() error {
	return e.Err
}

// P4Runner runs one p4 command.
type P4Runner interface {
	Run(ctx context.Context, args []string) ([]byte, error)
}

// ExecServer serves p4 exec requests.
type ExecServer struct {
	p4 P4Runner
}

// P4Exec runs args and returns the output.
// From: sourcegraph/sourcegraph-public-snapshot#53826
// every failure becomes CodeInvalidArgument with only the message kept, so a
// deadline or client cancellation is reported as a bad request
//
// bug: foldedtimeout
func (s *ExecServer) P4Exec(ctx context.Context, args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, &StatusError{Code: CodeInvalidArgument, Msg: "no command"}
	}
	out, err := s.p4.Run(ctx, args)
	if err != nil {
		return nil, &StatusError{Code: CodeInvalidArgument, Msg: err.Error()}
	}
	return out, nil
}

// P4ExecNearMiss runs args and maps context errors to their own codes,
// keeping the cause in the chain.
// From: sourcegraph/sourcegraph-public-snapshot#53826
//
// ok: foldedtimeout
func (s *ExecServer) P4ExecNearMiss(ctx context.Context, args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, &StatusError{Code: CodeInvalidArgument, Msg: "no command"}
	}
	out, err := s.p4.Run(ctx, args)
	if err != nil {
		code := CodeInvalidArgument
		switch {
		case errors.Is(err, context.Canceled):
			code = CodeCanceled
		case errors.Is(err, context.DeadlineExceeded):
			code = CodeDeadlineExceeded
		}
		return nil, &StatusError{Code: code, Msg: err.Error(), Err: err}
	}
	return out, nil
}

// Series is one labelled time series.
type Series struct {
	Labels string
}

// Shard answers selects for part of the data.
type Shard interface {
	Select(ctx context.Context, matcher string) ([]Series, error)
}

// multiError collects shard errors for display.
type multiError []error

// Error joins the messages.
//
// ok: foldedtimeout
func (m multiError) Error() string {
	parts := make([]string, len(m))
	for i, err := range m {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

// FanoutQuerier merges the answers of all shards.
type FanoutQuerier struct {
	shards []Shard
}

// Select queries every shard.
// From: grafana/mimir-prometheus#460
// failures are returned as a multiError, which has no Unwrap, so a cancelled
// query is not recognised by errors.Is(err, context.Canceled)
//
// bug: foldedtimeout
func (q *FanoutQuerier) Select(ctx context.Context, matcher string) ([]Series, error) {
	var out []Series
	var errs multiError
	for _, shard := range q.shards {
		s, err := shard.Select(ctx, matcher)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// SelectNearMiss queries every shard and joins failures with errors.Join.
// From: grafana/mimir-prometheus#460
//
// ok: foldedtimeout
func (q *FanoutQuerier) SelectNearMiss(ctx context.Context, matcher string) ([]Series, error) {
	var out []Series
	var errs []error
	for _, shard := range q.shards {
		s, err := shard.Select(ctx, matcher)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// ErrExhaustedRetries means every attempt failed.
var ErrExhaustedRetries = errors.New("fetcher: retries exhausted")

// Block is one fetched block.
type Block struct {
	Height int64
	Hash   string
}

// Fetcher fetches blocks from a node with retries.
type Fetcher struct {
	fetch      func(ctx context.Context, height int64) (*Block, error)
	maxRetries int
	backoff    func(attempt int) time.Duration
}

// BlockRetry fetches height, retrying failures.
// From: coinbase/mesh-sdk-go#30
// when ctx ends during the wait it returns ErrExhaustedRetries without the
// context error, so a cancellation is reported as a node failure
//
// bug: foldedtimeout
func (f *Fetcher) BlockRetry(ctx context.Context, height int64) (*Block, error) {
	for attempt := 1; ; attempt++ {
		blk, err := f.fetch(ctx, height)
		if err == nil {
			return blk, nil
		}
		if attempt >= f.maxRetries {
			return nil, fmt.Errorf("%w: block %d: %w", ErrExhaustedRetries, height, err)
		}
		t := time.NewTimer(f.backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%w: block %d", ErrExhaustedRetries, height)
		case <-t.C:
		}
	}
}

// BlockRetryNearMiss fetches height, retrying failures, and returns the
// context error when the caller gives up.
// From: coinbase/mesh-sdk-go#30
//
// ok: foldedtimeout
func (f *Fetcher) BlockRetryNearMiss(ctx context.Context, height int64) (*Block, error) {
	for attempt := 1; ; attempt++ {
		blk, err := f.fetch(ctx, height)
		if err == nil {
			return blk, nil
		}
		if attempt >= f.maxRetries {
			return nil, fmt.Errorf("%w: block %d: %w", ErrExhaustedRetries, height, err)
		}
		t := time.NewTimer(f.backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("block %d: %w", height, ctx.Err())
		case <-t.C:
		}
	}
}
