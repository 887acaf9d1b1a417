// Package folded contains the client side of a cluster-management SDK, an
// address-suggestion API client, an inference gateway, a named-pipe
// connection, a message receiver and a generic resource pool.
package folded

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Connection is an authenticated connection to the cluster-management API.
type Connection struct {
	base   string
	token  string
	client *http.Client
}

// NewConnection returns a connection to base that sends token with every
// request.
// ok: foldedtimeout
func NewConnection(base, token string, client *http.Client) *Connection {
	return &Connection{base: base, token: token, client: client}
}

// Cluster is the subset of cluster attributes the SDK decodes.
type Cluster struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// ClustersGetRequest fetches one cluster by identifier.
type ClustersGetRequest struct {
	conn *Connection
	id   string
}

// Get prepares a request for the cluster with the given identifier.
// ok: foldedtimeout
func (c *Connection) Get(id string) *ClustersGetRequest {
	return &ClustersGetRequest{conn: c, id: id}
}

// newRequest builds the authenticated HTTP request for r.
// ok: foldedtimeout
func (r *ClustersGetRequest) newRequest(ctx context.Context) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.conn.base+"/api/clusters_mgmt/v1/clusters/"+r.id, nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+r.conn.token)
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// Send performs the request and decodes the cluster.
// From: openshift-online/ocm-sdk-go#289
// bug: foldedtimeout
func (r *ClustersGetRequest) Send(ctx context.Context) (*Cluster, error) {
	req, err := r.newRequest(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := r.conn.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("can't send request for cluster %q: %v", r.id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("cluster %q: unexpected status %d", r.id, resp.StatusCode)
	}
	var c Cluster
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return nil, fmt.Errorf("can't decode cluster %q: %v", r.id, err)
	}
	return &c, nil
}

// SendNearMiss performs the request and decodes the cluster.
// ok: foldedtimeout
func (r *ClustersGetRequest) SendNearMiss(ctx context.Context) (*Cluster, error) {
	req, err := r.newRequest(ctx)
	if err != nil {
		return nil, err
	}
	resp, err := r.conn.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("can't send request for cluster %q: %w", r.id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("cluster %q: unexpected status %d", r.id, resp.StatusCode)
	}
	var c Cluster
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return nil, fmt.Errorf("can't decode cluster %q: %w", r.id, err)
	}
	return &c, nil
}

// ParsePort reads a TCP port from a configuration string.
// ok: foldedtimeout
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("port %q is not a number: %v", s, err)
	}
	if n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %d out of range", n)
	}
	return n, nil
}

// SuggestClient calls the address-suggestion API.
type SuggestClient struct {
	endpoint string
	apiKey   string
	secret   string
	http     *http.Client
}

// NewSuggestClient returns a client for endpoint.
// ok: foldedtimeout
func NewSuggestClient(endpoint, apiKey, secret string) *SuggestClient {
	return &SuggestClient{endpoint: endpoint, apiKey: apiKey, secret: secret, http: &http.Client{Timeout: 10 * time.Second}}
}

// doRequest sends in as JSON to method and decodes the response into out.
// From: ekomobile/dadata#15
// bug: foldedtimeout
func (c *SuggestClient) doRequest(ctx context.Context, method string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("dadata: marshal %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("dadata: build %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+c.apiKey)
	req.Header.Set("X-Secret", c.secret)

	resp, err := c.http.Do(req)
	if err != nil {
		return errors.New("dadata: " + method + ": " + err.Error())
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("dadata: %s: status %d: %s", method, resp.StatusCode, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return errors.New("dadata: decode " + method + ": " + err.Error())
	}
	return nil
}

// doRequestNearMiss sends in as JSON to method and decodes the response into
// out.
// ok: foldedtimeout
func (c *SuggestClient) doRequestNearMiss(ctx context.Context, method string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("dadata: marshal %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/"+method, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("dadata: build %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+c.apiKey)
	req.Header.Set("X-Secret", c.secret)

	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("dadata: %s: %w", method, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("dadata: %s: status %d: %s", method, resp.StatusCode, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("dadata: decode %s: %w", method, err)
	}
	return nil
}

// Suggestion is one address suggestion.
type Suggestion struct {
	Value string `json:"value"`
}

// SuggestAddress returns address suggestions for query.
// ok: foldedtimeout
func (c *SuggestClient) SuggestAddress(ctx context.Context, query string) ([]Suggestion, error) {
	var out struct {
		Suggestions []Suggestion `json:"suggestions"`
	}
	if err := c.doRequestNearMiss(ctx, "suggest/address", map[string]string{"query": query}, &out); err != nil {
		return nil, err
	}
	return out.Suggestions, nil
}

// processingRetryTimeout bounds how long the gateway looks for a worker.
const processingRetryTimeout = 2 * time.Second

// AIRequest is one inference job routed through the gateway.
type AIRequest struct {
	Pipeline string
	ModelID  string
	Payload  []byte
}

// Orchestrator runs inference jobs.
type Orchestrator interface {
	Process(ctx context.Context, req AIRequest) ([]byte, error)
}

// Gateway routes inference jobs to the orchestrators that advertise the
// requested capability.
type Gateway struct {
	mu       sync.Mutex
	pool     []Orchestrator
	next     int
	onFailed func(pipeline, model string, err error)
}

// NewGateway returns a gateway over pool; onFailed is told about requests
// that could not be placed.
// ok: foldedtimeout
func NewGateway(pool []Orchestrator, onFailed func(pipeline, model string, err error)) *Gateway {
	return &Gateway{pool: pool, onFailed: onFailed}
}

// pick returns the next orchestrator in round-robin order.
// ok: foldedtimeout
func (g *Gateway) pick() (Orchestrator, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pool) == 0 {
		return nil, false
	}
	o := g.pool[g.next%len(g.pool)]
	g.next++
	return o, true
}

// Process tries orchestrators in turn until one of them accepts req or the
// placement window closes.
// From: livepeer/go-livepeer#3420
// bug: foldedtimeout
func (g *Gateway) Process(ctx context.Context, req AIRequest) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, processingRetryTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if o, ok := g.pick(); ok {
			out, err := o.Process(cctx, req)
			if err == nil {
				return out, nil
			}
		}
		select {
		case <-cctx.Done():
			err := fmt.Errorf("no orchestrators available within %v timeout", processingRetryTimeout)
			g.onFailed(req.Pipeline, req.ModelID, err)
			return nil, err
		case <-tick.C:
		}
	}
}

// ProcessNearMiss tries orchestrators in turn until one of them accepts req
// or the placement window closes.
// ok: foldedtimeout
func (g *Gateway) ProcessNearMiss(ctx context.Context, req AIRequest) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, processingRetryTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if o, ok := g.pick(); ok {
			out, err := o.Process(cctx, req)
			if err == nil {
				return out, nil
			}
		}
		select {
		case <-cctx.Done():
			err := cctx.Err()
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("no orchestrators available within %v timeout: %w", processingRetryTimeout, err)
				g.onFailed(req.Pipeline, req.ModelID, err)
			}
			return nil, err
		case <-tick.C:
		}
	}
}

// pipeTimeoutError is returned when a pipe operation does not complete in
// time.
type pipeTimeoutError struct{ op string }

// Error describes the operation that did not complete.
// ok: foldedtimeout
func (e *pipeTimeoutError) Error() string { return "pipe " + e.op + ": i/o timeout" }

// Timeout reports that the error is a timeout.
// ok: foldedtimeout
func (e *pipeTimeoutError) Timeout() bool { return true }

// pipeOpError wraps the reason a pipe operation stopped.
type pipeOpError struct {
	op  string
	err error
}

// Error describes the operation and its reason.
// ok: foldedtimeout
func (e *pipeOpError) Error() string { return "pipe " + e.op + ": " + e.err.Error() }

// Unwrap returns the reason.
// ok: foldedtimeout
func (e *pipeOpError) Unwrap() error { return e.err }

// Timeout reports whether the reason was a deadline.
// ok: foldedtimeout
func (e *pipeOpError) Timeout() bool { return errors.Is(e.err, context.DeadlineExceeded) }

// PipeConn is a message-mode named pipe whose reads complete asynchronously.
type PipeConn struct {
	reads chan []byte
}

// NewPipeConn returns a connection that delivers messages from reads.
// ok: foldedtimeout
func NewPipeConn(reads chan []byte) *PipeConn {
	return &PipeConn{reads: reads}
}

// ReadContext copies the next message into p, giving up when ctx ends.
// From: microsoft/go-winio#353
// bug: foldedtimeout
func (c *PipeConn) ReadContext(ctx context.Context, p []byte) (int, error) {
	select {
	case msg, ok := <-c.reads:
		if !ok {
			return 0, io.EOF
		}
		return copy(p, msg), nil
	case <-ctx.Done():
		return 0, &pipeTimeoutError{op: "read"}
	}
}

// ReadContextNearMiss copies the next message into p, giving up when ctx
// ends.
// ok: foldedtimeout
func (c *PipeConn) ReadContextNearMiss(ctx context.Context, p []byte) (int, error) {
	select {
	case msg, ok := <-c.reads:
		if !ok {
			return 0, io.EOF
		}
		return copy(p, msg), nil
	case <-ctx.Done():
		return 0, &pipeOpError{op: "read", err: ctx.Err()}
	}
}

// Message is one delivery from a subscription.
type Message struct {
	ID         string
	Attempts   int
	deadLetter func()
	nack       func()
}

// Receiver dispatches messages to a handler and settles them afterwards.
type Receiver struct {
	maxAttempts int
	handle      func(ctx context.Context, m *Message) error
	mu          sync.Mutex
	stopped     int
	failed      int
}

// NewReceiver returns a receiver that hands messages to handle.
// ok: foldedtimeout
func NewReceiver(maxAttempts int, handle func(context.Context, *Message) error) *Receiver {
	return &Receiver{maxAttempts: maxAttempts, handle: handle}
}

// finish settles m after the handler returned err: interrupted deliveries
// are handed back for redelivery without counting as an attempt, failed ones
// are dead-lettered once they run out of attempts.
// From: googleapis/google-cloud-go#11071
// bug: foldedtimeout
func (r *Receiver) finish(m *Message, err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == context.Canceled || err == context.DeadlineExceeded {
		r.stopped++
		m.nack()
		return
	}
	r.failed++
	m.Attempts++
	if m.Attempts >= r.maxAttempts {
		m.deadLetter()
		return
	}
	m.nack()
}

// finishNearMiss settles m after the handler returned err: interrupted
// deliveries are handed back for redelivery without counting as an attempt,
// failed ones are dead-lettered once they run out of attempts.
// ok: foldedtimeout
func (r *Receiver) finishNearMiss(m *Message, err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		r.stopped++
		m.nack()
		return
	}
	r.failed++
	m.Attempts++
	if m.Attempts >= r.maxAttempts {
		m.deadLetter()
		return
	}
	m.nack()
}

// Deliver runs the handler for m and settles it.
// ok: foldedtimeout
func (r *Receiver) Deliver(ctx context.Context, m *Message) {
	err := r.handle(ctx, m)
	if err != nil {
		err = fmt.Errorf("message %s: %w", m.ID, err)
	}
	r.finishNearMiss(m, err)
}

// ErrPoolTimeout is returned when no resource becomes available in time.
var ErrPoolTimeout = errors.New("resource pool timed out")

// ErrPoolClosed is returned by a closed pool.
var ErrPoolClosed = errors.New("resource pool is closed")

// Resource is anything a pool can hand out.
type Resource interface {
	Close()
}

// Pool hands out up to capacity resources of type R created by factory.
type Pool[R Resource] struct {
	factory   func(context.Context) (R, error)
	resources chan R
	tokens    chan struct{}
	closed    chan struct{}
}

// NewPool returns a pool of at most capacity resources.
// ok: foldedtimeout
func NewPool[R Resource](capacity int, factory func(context.Context) (R, error)) *Pool[R] {
	p := &Pool[R]{
		factory:   factory,
		resources: make(chan R, capacity),
		tokens:    make(chan struct{}, capacity),
		closed:    make(chan struct{}),
	}
	for i := 0; i < capacity; i++ {
		p.tokens <- struct{}{}
	}
	return p
}

// Get returns an idle resource, creates one if capacity allows, or waits
// for one to be returned.
// From: vitessio/vitess#630
// bug: foldedtimeout
func (p *Pool[R]) Get(ctx context.Context) (R, error) {
	var zero R
	select {
	case r := <-p.resources:
		return r, nil
	case <-p.tokens:
		r, err := p.factory(ctx)
		if err != nil {
			p.tokens <- struct{}{}
			return zero, fmt.Errorf("create resource: %w", err)
		}
		return r, nil
	case <-p.closed:
		return zero, ErrPoolClosed
	case <-ctx.Done():
		return zero, ErrPoolTimeout
	}
}

// GetNearMiss returns an idle resource, creates one if capacity allows, or
// waits for one to be returned.
// ok: foldedtimeout
func (p *Pool[R]) GetNearMiss(ctx context.Context) (R, error) {
	var zero R
	select {
	case r := <-p.resources:
		return r, nil
	case <-p.tokens:
		r, err := p.factory(ctx)
		if err != nil {
			p.tokens <- struct{}{}
			return zero, fmt.Errorf("create resource: %w", err)
		}
		return r, nil
	case <-p.closed:
		return zero, ErrPoolClosed
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("%w: %w", ErrPoolTimeout, ctx.Err())
		}
		return zero, ctx.Err()
	}
}

// Put returns r to the pool.
// ok: foldedtimeout
func (p *Pool[R]) Put(r R) {
	select {
	case p.resources <- r:
	default:
		r.Close()
		p.tokens <- struct{}{}
	}
}

// Close stops handing out resources.
// ok: foldedtimeout
func (p *Pool[R]) Close() {
	close(p.closed)
}

// ErrUnavailable reports that a dependency could not be reached.
var ErrUnavailable = errors.New("dependency unavailable")

// WaitHealthy polls check until it succeeds or ctx ends; the error returned
// on expiry matches both ErrUnavailable and the context error.
// ok: foldedtimeout
func WaitHealthy(ctx context.Context, every time.Duration, check func(context.Context) error) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := check(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ErrUnavailable, ctx.Err())
		case <-t.C:
		}
	}
}

// RunStep runs fn with a per-step deadline whose cause names the step; the
// cause still matches context.DeadlineExceeded.
// ok: foldedtimeout
func RunStep(ctx context.Context, name string, limit time.Duration, fn func(context.Context) error) error {
	sctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("step %s: %w", name, context.DeadlineExceeded))
	defer cancel()
	if err := fn(sctx); err != nil {
		if sctx.Err() != nil {
			return context.Cause(sctx)
		}
		return fmt.Errorf("step %s: %w", name, err)
	}
	return nil
}

// IsTimeout reports whether err was caused by a deadline, including errors
// that wrap one.
// ok: foldedtimeout
func IsTimeout(err error) bool {
	var t interface{ Timeout() bool }
	if errors.As(err, &t) && t.Timeout() {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}
