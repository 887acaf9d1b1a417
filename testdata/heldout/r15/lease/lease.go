// Package lease holds code that acquires something (a slot, a span, a
// cancel func, a response body, a lock, a timer) and does not give it back on
// every path.
package lease

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Sharded blob store with a bounded number of in-flight writes.

// Slots is a counting semaphore.
type Slots struct {
	sem chan struct{}
}

// NewSlots returns a semaphore with n slots.
// ok: leaseleak
func NewSlots(n int) *Slots { return &Slots{sem: make(chan struct{}, n)} }

// Acquire takes a slot or gives up when ctx ends.
// ok: leaseleak
func (s *Slots) Acquire(ctx context.Context) error {
	select {
	case s.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release returns a slot.
// ok: leaseleak
func (s *Slots) Release() { <-s.sem }

// Location addresses a blob inside a shard.
type Location struct {
	Shard  uint8
	Slot   uint32
	Length uint16
}

type writeOp struct {
	data   []byte
	result chan writeResult
}

type writeResult struct {
	loc Location
	err error
}

// Store hands writes to per-shard writer goroutines.
type Store struct {
	slots  *Slots
	writes chan writeOp
}

// Write stores data. If the caller's context ends while the write is waiting
// for a shard writer, it returns without giving the slot back, and after
// enough abandoned writes every Write blocks forever in Acquire.
// From: ethersphere/bee#3274
// bug: leaseleak
func (st *Store) Write(ctx context.Context, data []byte) (Location, error) {
	if err := st.slots.Acquire(ctx); err != nil {
		return Location{}, err
	}
	op := writeOp{data: data, result: make(chan writeResult, 1)}
	select {
	case st.writes <- op:
	case <-ctx.Done():
		return Location{}, ctx.Err()
	}
	res := <-op.result
	st.slots.Release()
	return res.loc, res.err
}

// WriteNearMiss releases the slot on every path.
// ok: leaseleak
func (st *Store) WriteNearMiss(ctx context.Context, data []byte) (Location, error) {
	if err := st.slots.Acquire(ctx); err != nil {
		return Location{}, err
	}
	defer st.slots.Release()
	op := writeOp{data: data, result: make(chan writeResult, 1)}
	select {
	case st.writes <- op:
	case <-ctx.Done():
		return Location{}, ctx.Err()
	}
	res := <-op.result
	return res.loc, res.err
}

// ---------------------------------------------------------------------------
// Document repository with tracing spans.

// Span is a tracing span.
type Span interface {
	End()
	RecordError(err error)
}

// Tracer starts spans.
type Tracer interface {
	Start(ctx context.Context, name string) (context.Context, Span)
}

// Holder is an account holder document.
type Holder struct {
	ID             string
	OrganizationID string
	Name           string
}

// Cursor iterates query results.
type Cursor interface {
	Next(ctx context.Context) bool
	Decode(v any) error
	Err() error
	Close(ctx context.Context) error
}

// Collection runs queries.
type Collection interface {
	Find(ctx context.Context, filter map[string]any) (Cursor, error)
}

// HolderRepo reads holders from a document database.
type HolderRepo struct {
	tracer Tracer
	coll   Collection
}

// buildHolderFilter validates the ids and builds the query filter.
// ok: leaseleak
func buildHolderFilter(id, orgID string) (map[string]any, error) {
	if id == "" || orgID == "" {
		return nil, errors.New("holder id and organization id are required")
	}
	return map[string]any{"_id": id, "organization_id": orgID, "deleted_at": nil}, nil
}

// Find loads one holder. The inner find span is started before the filter is
// built and ended only after the query succeeds, so a bad filter or a
// cancelled query leaves it open.
// From: LerianStudio/midaz#1900
// bug: leaseleak
func (r *HolderRepo) Find(ctx context.Context, id, orgID string) (*Holder, error) {
	ctx, span := r.tracer.Start(ctx, "mongodb.find_holder")
	defer span.End()

	ctx, spanFind := r.tracer.Start(ctx, "mongodb.find_holder.find")
	filter, err := buildHolderFilter(id, orgID)
	if err != nil {
		span.RecordError(err)
		return nil, err
	}
	cur, err := r.coll.Find(ctx, filter)
	if err != nil {
		spanFind.RecordError(err)
		return nil, fmt.Errorf("find holder %s: %w", id, err)
	}
	defer cur.Close(ctx)
	spanFind.End()

	if !cur.Next(ctx) {
		if err := cur.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("holder %s not found", id)
	}
	var h Holder
	if err := cur.Decode(&h); err != nil {
		return nil, err
	}
	return &h, nil
}

// FindNearMiss ends the inner span with defer right after starting it.
// ok: leaseleak
func (r *HolderRepo) FindNearMiss(ctx context.Context, id, orgID string) (*Holder, error) {
	ctx, span := r.tracer.Start(ctx, "mongodb.find_holder")
	defer span.End()

	cur, err := func() (Cursor, error) {
		ctx, spanFind := r.tracer.Start(ctx, "mongodb.find_holder.find")
		defer spanFind.End()
		filter, err := buildHolderFilter(id, orgID)
		if err != nil {
			spanFind.RecordError(err)
			return nil, err
		}
		cur, err := r.coll.Find(ctx, filter)
		if err != nil {
			spanFind.RecordError(err)
			return nil, fmt.Errorf("find holder %s: %w", id, err)
		}
		return cur, nil
	}()
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)

	if !cur.Next(ctx) {
		if err := cur.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("holder %s not found", id)
	}
	var h Holder
	if err := cur.Decode(&h); err != nil {
		return nil, err
	}
	return &h, nil
}

// ---------------------------------------------------------------------------
// Client connection that dials with a timeout.

// Transport is an established client transport.
type Transport interface {
	Close() error
}

// connState is the state of an addrConn.
type connState int

const (
	stateIdle connState = iota
	stateConnecting
	stateReady
)

// addrConn is one connection to one backend address.
type addrConn struct {
	addr        string
	dialTimeout time.Duration
	dial        func(ctx context.Context, addr string) (Transport, error)

	mu         sync.Mutex
	state      connState
	transport  Transport
	cancelDial context.CancelFunc
}

// connect dials the backend under a timeout. The cancel func is kept so the
// balancer can abort a dial in flight, but it is only called when the dial
// fails; after a successful dial the timeout context and its timer are never
// released.
// From: grpc/grpc-go#1099
// bug: leaseleak
func (ac *addrConn) connect(ctx context.Context) error {
	dialCtx, cancel := context.WithTimeout(ctx, ac.dialTimeout)
	ac.mu.Lock()
	ac.state = stateConnecting
	ac.cancelDial = cancel
	ac.mu.Unlock()

	t, err := ac.dial(dialCtx, ac.addr)
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if err != nil {
		ac.cancelDial()
		ac.cancelDial = nil
		ac.state = stateIdle
		return fmt.Errorf("dial %s: %w", ac.addr, err)
	}
	ac.transport = t
	ac.state = stateReady
	return nil
}

// connectNearMiss releases the dial context once the dial is over.
// ok: leaseleak
func (ac *addrConn) connectNearMiss(ctx context.Context) error {
	dialCtx, cancel := context.WithTimeout(ctx, ac.dialTimeout)
	ac.mu.Lock()
	ac.state = stateConnecting
	ac.cancelDial = cancel
	ac.mu.Unlock()

	t, err := ac.dial(dialCtx, ac.addr)
	ac.mu.Lock()
	defer ac.mu.Unlock()
	ac.cancelDial()
	ac.cancelDial = nil
	if err != nil {
		ac.state = stateIdle
		return fmt.Errorf("dial %s: %w", ac.addr, err)
	}
	ac.transport = t
	ac.state = stateReady
	return nil
}

// abortDial cancels a dial that is still in flight.
// ok: leaseleak
func (ac *addrConn) abortDial() {
	ac.mu.Lock()
	defer ac.mu.Unlock()
	if ac.state == stateConnecting && ac.cancelDial != nil {
		ac.cancelDial()
	}
}

// tearDown closes the transport.
// ok: leaseleak
func (ac *addrConn) tearDown() error {
	ac.mu.Lock()
	defer ac.mu.Unlock()
	ac.state = stateIdle
	if ac.transport == nil {
		return nil
	}
	err := ac.transport.Close()
	ac.transport = nil
	return err
}

// ---------------------------------------------------------------------------
// Key/value API client.

// KVClient talks to a key/value HTTP API.
type KVClient struct {
	http    *http.Client
	baseURL string
}

// requireOK turns a non-200 answer into an error, reading the body for the
// message but never closing it, so every failed request keeps its
// connection out of the pool.
// From: hashicorp/consul#608
// bug: leaseleak
func requireOK(resp *http.Response, err error) (*http.Response, error) {
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, resp.Body)
		return nil, fmt.Errorf("unexpected response code: %d (%s)", resp.StatusCode, bytes.TrimSpace(buf.Bytes()))
	}
	return resp, nil
}

// requireOKNearMiss closes the body before returning the error.
// ok: leaseleak
func requireOKNearMiss(resp *http.Response, err error) (*http.Response, error) {
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, resp.Body)
		_ = resp.Body.Close()
		return nil, fmt.Errorf("unexpected response code: %d (%s)", resp.StatusCode, bytes.TrimSpace(buf.Bytes()))
	}
	return resp, nil
}

// Get reads one key. On success it owns and closes the body.
// ok: leaseleak
func (c *KVClient) Get(ctx context.Context, key string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/v1/kv/"+key+"?raw", nil)
	if err != nil {
		return nil, err
	}
	resp, err := requireOKNearMiss(c.http.Do(req))
	if err != nil {
		return nil, fmt.Errorf("kv get %s: %w", key, err)
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// ---------------------------------------------------------------------------
// Connection pool guarded by a mutex.

// errPoolClosed is returned once the pool is closed.
var errPoolClosed = errors.New("pool: closed")

// PoolConn is a pooled connection.
type PoolConn struct {
	id int
}

// Pool hands out idle connections.
type Pool struct {
	mu     sync.Mutex
	closed bool
	idle   []*PoolConn
	waitq  []chan *PoolConn
}

// Get returns an idle connection or waits for one. When the context has
// already expired it returns with the pool mutex still held, and the next
// caller hangs.
// From: golang/go#17518
// bug: leaseleak
func (p *Pool) Get(ctx context.Context) (*PoolConn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	req := make(chan *PoolConn, 1)
	p.waitq = append(p.waitq, req)
	p.mu.Unlock()

	select {
	case c := <-req:
		return c, nil
	case <-ctx.Done():
		p.abandon(req)
		return nil, ctx.Err()
	}
}

// GetNearMiss unlocks before returning the context error.
// ok: leaseleak
func (p *Pool) GetNearMiss(ctx context.Context) (*PoolConn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	if err := ctx.Err(); err != nil {
		p.mu.Unlock()
		return nil, err
	}
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	req := make(chan *PoolConn, 1)
	p.waitq = append(p.waitq, req)
	p.mu.Unlock()

	select {
	case c := <-req:
		return c, nil
	case <-ctx.Done():
		p.abandon(req)
		return nil, ctx.Err()
	}
}

// abandon removes req from the wait queue, or puts back a connection that was
// handed to it after the waiter gave up.
// ok: leaseleak
func (p *Pool) abandon(req chan *PoolConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, w := range p.waitq {
		if w == req {
			p.waitq = append(p.waitq[:i], p.waitq[i+1:]...)
			return
		}
	}
	select {
	case c := <-req:
		p.idle = append(p.idle, c)
	default:
	}
}

// Put returns c to the pool, handing it to the oldest waiter if any.
// ok: leaseleak
func (p *Pool) Put(c *PoolConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.waitq) > 0 {
		w := p.waitq[0]
		p.waitq = p.waitq[1:]
		w <- c
		return
	}
	p.idle = append(p.idle, c)
}

// ---------------------------------------------------------------------------
// Endpoint watcher.

// Endpoint is a backend address.
type Endpoint struct {
	Addr string
	Port int
}

// EndpointCache is the watcher's view of service endpoints.
type EndpointCache interface {
	Get(svc string) []Endpoint
}

// Watcher waits for services to get endpoints.
type Watcher struct {
	cache        EndpointCache
	updates      <-chan struct{}
	pollInterval time.Duration
}

// WaitForEndpoints waits until svc has endpoints. A fresh timer is armed on
// every pass; the update branch stops it, but the cancellation branch returns
// with it still armed.
// From: linkerd/linkerd2#7956
// bug: leaseleak
func (w *Watcher) WaitForEndpoints(ctx context.Context, svc string) ([]Endpoint, error) {
	for {
		if eps := w.cache.Get(svc); len(eps) > 0 {
			return eps, nil
		}
		timer := time.NewTimer(w.pollInterval)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s endpoints: %w", svc, ctx.Err())
		case <-w.updates:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// WaitForEndpointsNearMiss stops the timer on every branch.
// ok: leaseleak
func (w *Watcher) WaitForEndpointsNearMiss(ctx context.Context, svc string) ([]Endpoint, error) {
	for {
		if eps := w.cache.Get(svc); len(eps) > 0 {
			return eps, nil
		}
		timer := time.NewTimer(w.pollInterval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("waiting for %s endpoints: %w", svc, ctx.Err())
		case <-w.updates:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// OpenStream returns the response body to the caller on success: ownership of
// the body moves to the caller, and every failure path closes it here.
// ok: leaseleak
func OpenStream(ctx context.Context, c *http.Client, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("open stream %s: status %d", url, resp.StatusCode)
	}
	return resp.Body, nil
}

// Session keeps a cancel func in a field and calls it from Close.
type Session struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// NewSession derives the session context from parent.
// ok: leaseleak
func NewSession(parent context.Context) *Session {
	ctx, cancel := context.WithCancel(parent)
	return &Session{ctx: ctx, cancel: cancel}
}

// Close ends the session.
// ok: leaseleak
func (s *Session) Close() { s.cancel() }

// TryWrite returns without releasing when Acquire failed, because nothing
// was acquired.
// ok: leaseleak
func TryWrite(ctx context.Context, slots *Slots, write func(context.Context) error) error {
	if err := slots.Acquire(ctx); err != nil {
		return fmt.Errorf("no write slot: %w", err)
	}
	defer slots.Release()
	return write(ctx)
}
