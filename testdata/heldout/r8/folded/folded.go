// Package folded holds functions where context.Canceled and
// context.DeadlineExceeded keep, or lose, their identity on the way up.
package folded

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------------------
// RPC metrics: classifying a handler's error.

// Outcome is a metrics label.
type Outcome string

// Outcomes recorded per call.
const (
	OutcomeOK       Outcome = "ok"
	OutcomeCanceled Outcome = "canceled"
	OutcomeTimeout  Outcome = "timeout"
	OutcomeError    Outcome = "error"
)

// Counters counts outcomes per method.
type Counters struct {
	mu     sync.Mutex
	counts map[string]map[Outcome]int
}

// inc bumps one counter.
// ok: foldedtimeout
func (c *Counters) inc(method string, o Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts[method] == nil {
		c.counts[method] = map[Outcome]int{}
	}
	c.counts[method][o]++
}

// Interceptor wraps handlers and records outcomes.
type Interceptor struct {
	counters *Counters
}

// observe classifies err with ==. Handlers wrap with
// fmt.Errorf("...: %w", err), so a query that ran out of time is recorded
// as a server error rather than a timeout, and the HTTP layer, which keys
// its status off this outcome, answers 500 instead of 504.
// From: m3db/m3#2886
// bug: foldedtimeout
func (i *Interceptor) observe(method string, err error) Outcome {
	o := OutcomeError
	switch {
	case err == nil:
		o = OutcomeOK
	case err == context.Canceled:
		o = OutcomeCanceled
	case err == context.DeadlineExceeded:
		o = OutcomeTimeout
	}
	i.counters.inc(method, o)
	return o
}

// observeNearMiss classifies with errors.Is, which sees through wrapping.
// ok: foldedtimeout
func (i *Interceptor) observeNearMiss(method string, err error) Outcome {
	o := OutcomeError
	switch {
	case err == nil:
		o = OutcomeOK
	case errors.Is(err, context.Canceled):
		o = OutcomeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		o = OutcomeTimeout
	}
	i.counters.inc(method, o)
	return o
}

// Handle runs a handler and records its outcome.
// ok: foldedtimeout
func (i *Interceptor) Handle(ctx context.Context, method string, h func(context.Context) error) error {
	err := h(ctx)
	i.observeNearMiss(method, err)
	return err
}

// ---------------------------------------------------------------------------
// A circuit breaker that should not count caller cancellations.

// Breaker opens after too many consecutive failures.
type Breaker struct {
	threshold int32
	failures  atomic.Int32
	ignored   map[error]bool
}

// NewBreaker builds a breaker that ignores context cancellations.
// ok: foldedtimeout
func NewBreaker(threshold int32) *Breaker {
	return &Breaker{
		threshold: threshold,
		ignored:   map[error]bool{context.Canceled: true},
	}
}

// ErrOpen is returned while the breaker is open.
var ErrOpen = errors.New("breaker: open")

// Call runs fn unless the breaker is open. Ignorable errors are looked up in
// a map keyed by error value, so only a bare context.Canceled matches; a
// canceled call that comes back as "fetch profile: context canceled" counts
// as a failure, and a burst of client disconnects opens the breaker.
// From: exaring/hoglet#13
// bug: foldedtimeout
func (b *Breaker) Call(ctx context.Context, fn func(context.Context) error) error {
	if b.failures.Load() >= b.threshold {
		return ErrOpen
	}
	err := fn(ctx)
	switch {
	case err == nil:
		b.failures.Store(0)
	case b.ignored[err]:
	default:
		b.failures.Add(1)
	}
	return err
}

// CallNearMiss walks the ignore set with errors.Is.
// ok: foldedtimeout
func (b *Breaker) CallNearMiss(ctx context.Context, fn func(context.Context) error) error {
	if b.failures.Load() >= b.threshold {
		return ErrOpen
	}
	err := fn(ctx)
	if err == nil {
		b.failures.Store(0)
		return nil
	}
	for target := range b.ignored {
		if errors.Is(err, target) {
			return err
		}
	}
	b.failures.Add(1)
	return err
}

// ---------------------------------------------------------------------------
// Waiting for a consensus round.

// Block is a finalized block.
type Block struct {
	Round uint64
}

// Subscription is a block feed; Close releases it.
type Subscription interface {
	C() <-chan *Block
	Close()
}

// BlockFeed hands out subscriptions.
type BlockFeed interface {
	Watch() Subscription
}

// RoundWaiter waits for rounds.
type RoundWaiter struct {
	feed BlockFeed
}

// ErrAborted reports that waiting was abandoned.
var ErrAborted = errors.New("roothash: wait aborted")

// WaitForRound blocks until a block at or past round arrives. On ctx.Done it
// returns its own sentinel, so callers checking errors.Is(err,
// context.DeadlineExceeded) to decide whether to retry with a longer budget
// never see a timeout.
// From: oasisprotocol/oasis-core#1434
// bug: foldedtimeout
func (w *RoundWaiter) WaitForRound(ctx context.Context, round uint64) (*Block, error) {
	sub := w.feed.Watch()
	defer sub.Close()
	for {
		select {
		case blk := <-sub.C():
			if blk.Round >= round {
				return blk, nil
			}
		case <-ctx.Done():
			return nil, ErrAborted
		}
	}
}

// WaitForRoundNearMiss keeps the sentinel for existing callers but wraps
// ctx.Err() alongside it.
// ok: foldedtimeout
func (w *RoundWaiter) WaitForRoundNearMiss(ctx context.Context, round uint64) (*Block, error) {
	sub := w.feed.Watch()
	defer sub.Close()
	for {
		select {
		case blk := <-sub.C():
			if blk.Round >= round {
				return blk, nil
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("%w at round %d: %w", ErrAborted, round, ctx.Err())
		}
	}
}

// ---------------------------------------------------------------------------
// Waiting for an endpoint's first regeneration.

// Endpoint is a network endpoint being programmed.
type Endpoint struct {
	ID        uint16
	pollEvery time.Duration
	regenDone func() bool
}

// WaitForFirstRegeneration polls until the endpoint has been programmed once.
// The context error is formatted with %v, so the "timeout" it returns is
// just text and the agent's readiness check cannot tell a deadline from a
// shutdown.
// From: cilium/cilium#19333
// bug: foldedtimeout
func (e *Endpoint) WaitForFirstRegeneration(ctx context.Context) error {
	t := time.NewTicker(e.pollEvery)
	defer t.Stop()
	for !e.regenDone() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timeout while waiting for initial regeneration of endpoint %d: %v", e.ID, ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// WaitForFirstRegenerationNearMiss wraps the context error with %w.
// ok: foldedtimeout
func (e *Endpoint) WaitForFirstRegenerationNearMiss(ctx context.Context) error {
	t := time.NewTicker(e.pollEvery)
	defer t.Stop()
	for !e.regenDone() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timeout while waiting for initial regeneration of endpoint %d: %w", e.ID, ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Per-handler time budgets.

// Budget runs handlers under a time budget.
type Budget struct {
	limit time.Duration
}

// Run gives fn at most b.limit. The budget is enforced with a timer that
// calls cancel, so when it runs out fn sees context.Canceled rather than
// DeadlineExceeded; the HTTP layer maps that to 499 "client closed request"
// instead of 504, and the timeout is reported as a cancellation.
// From: gin-contrib/timeout#54
// bug: foldedtimeout
func (b *Budget) Run(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := time.AfterFunc(b.limit, cancel)
	defer timer.Stop()
	return fn(ctx)
}

// RunNearMiss uses a real deadline so expiry surfaces as DeadlineExceeded.
// ok: foldedtimeout
func (b *Budget) RunNearMiss(ctx context.Context, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, b.limit)
	defer cancel()
	return fn(ctx)
}

// ---------------------------------------------------------------------------
// Hosting in-process plugins.

// Plugin handles requests.
type Plugin interface {
	Handle(ctx context.Context, in []byte) ([]byte, error)
}

// Host dispatches to plugins.
type Host struct {
	plugins map[string]Plugin
}

// ErrNoPlugin reports an unknown plugin.
var ErrNoPlugin = errors.New("plugin: not registered")

// Invoke calls a plugin. Plugin errors are flattened to their text so that
// plugin-internal types do not leak to callers; a plugin that stopped because
// the call was canceled now returns an opaque error and the host's caller
// retries it as a plugin failure.
// From: pluginrpc/pluginrpc-go#17
// bug: foldedtimeout
func (h *Host) Invoke(ctx context.Context, name string, in []byte) ([]byte, error) {
	p, ok := h.plugins[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoPlugin, name)
	}
	out, err := p.Handle(ctx, in)
	if err != nil {
		return nil, errors.New(err.Error())
	}
	return out, nil
}

// PluginError hides a plugin's concrete error types but keeps the chain.
type PluginError struct {
	Plugin string
	err    error
}

// Error formats the plugin error.
// ok: foldedtimeout
func (e *PluginError) Error() string { return "plugin " + e.Plugin + ": " + e.err.Error() }

// Unwrap exposes the underlying chain to errors.Is.
// ok: foldedtimeout
func (e *PluginError) Unwrap() error { return e.err }

// InvokeNearMiss wraps the error in PluginError, which unwraps.
// ok: foldedtimeout
func (h *Host) InvokeNearMiss(ctx context.Context, name string, in []byte) ([]byte, error) {
	p, ok := h.plugins[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoPlugin, name)
	}
	out, err := p.Handle(ctx, in)
	if err != nil {
		return nil, &PluginError{Plugin: name, err: err}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// GraphQL error presentation.

// GQLError is the error shape sent to GraphQL clients.
type GQLError struct {
	Message string
	Path    []string
}

// Error returns the message.
// ok: foldedtimeout
func (e *GQLError) Error() string { return e.Message }

// presentError converts a resolver error into a GQLError carrying only the
// message. The request logger filters out errors.Is(err, context.Canceled)
// to avoid noise from users navigating away, but that check now always
// fails and every abandoned page load is logged as an error.
// From: evergreen-ci/evergreen#6762
// bug: foldedtimeout
func presentError(path []string, err error) error {
	if err == nil {
		return nil
	}
	return &GQLError{Message: err.Error(), Path: path}
}

// WrappedGQLError carries the original error next to the client-facing
// fields.
type WrappedGQLError struct {
	Message string
	Path    []string
	Err     error
}

// Error returns the message.
// ok: foldedtimeout
func (e *WrappedGQLError) Error() string { return e.Message }

// Unwrap returns the original resolver error.
// ok: foldedtimeout
func (e *WrappedGQLError) Unwrap() error { return e.Err }

// presentErrorNearMiss keeps the original error reachable through Unwrap.
// ok: foldedtimeout
func presentErrorNearMiss(path []string, err error) error {
	if err == nil {
		return nil
	}
	return &WrappedGQLError{Message: err.Error(), Path: path, Err: err}
}

// ---------------------------------------------------------------------------
// Correct functions that only look like they fold context errors.

// ErrQuotaTimeout is a domain error for a quota check that ran out of time.
var ErrQuotaTimeout = errors.New("quota: check timed out")

// QuotaChecker checks quotas remotely.
type QuotaChecker struct {
	check func(ctx context.Context, tenant string) (bool, error)
}

// Allow maps an expired check to a domain sentinel, wrapping both the
// sentinel and the original error with %w.
// ok: foldedtimeout
func (q *QuotaChecker) Allow(ctx context.Context, tenant string) (bool, error) {
	ok, err := q.check(ctx, tenant)
	if errors.Is(err, context.DeadlineExceeded) {
		return false, fmt.Errorf("%w for %s: %w", ErrQuotaTimeout, tenant, err)
	}
	if err != nil {
		return false, fmt.Errorf("quota for %s: %w", tenant, err)
	}
	return ok, nil
}

// StatusFor picks an HTTP status for a request that failed. ctx.Err()
// returns the bare sentinels, so comparing it with == is exact.
// ok: foldedtimeout
func StatusFor(ctx context.Context, err error) int {
	switch ctx.Err() {
	case context.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case context.Canceled:
		return 499
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// WaitCause returns why ctx ended, preferring a recorded cause but falling
// back to the context error itself; both keep their identity.
// ok: foldedtimeout
func WaitCause(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, ctx.Err()) {
			return fmt.Errorf("%w (cause: %w)", ctx.Err(), cause)
		}
		return ctx.Err()
	}
}
