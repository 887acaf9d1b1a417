// Package orphan holds goroutines whose result sends do, or do not, block
// forever after the receiver has given up.
package orphan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------------------
// A JSON-RPC connection with pending calls.

// Response is a decoded reply.
type Response struct {
	ID     uint64
	Result json.RawMessage
	Error  string
}

// Transport writes requests; its reader goroutine calls Conn.deliver for
// every reply it reads.
type Transport interface {
	Send(ctx context.Context, id uint64, method string, params any) error
}

// Conn multiplexes calls over a transport.
type Conn struct {
	t       Transport
	seq     atomic.Uint64
	mu      sync.Mutex
	pending map[uint64]chan *Response
}

// register records a pending call.
// ok: orphansend
func (c *Conn) register(id uint64, ch chan *Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[id] = ch
}

// take removes and returns a pending call's channel.
// ok: orphansend
func (c *Conn) take(id uint64) (chan *Response, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	return ch, ok
}

// deliver is called by the transport's reader goroutine for each reply; it
// hands the reply to the waiting call. The channel's buffer is what keeps
// this from blocking when the caller has already left.
// ok: orphansend
func (c *Conn) deliver(resp *Response) {
	if ch, ok := c.take(resp.ID); ok {
		ch <- resp
	}
}

// Call sends a request and waits for its reply. The reply channel is
// unbuffered; when the caller's context ends first, the reply that arrives
// later is sent by the transport's reader with nobody receiving, and the
// reader (and with it every other call on the connection) hangs.
// From: sourcegraph/jsonrpc2#3
// bug: orphansend
func (c *Conn) Call(ctx context.Context, method string, params any) (*Response, error) {
	id := c.seq.Add(1)
	done := make(chan *Response)
	c.register(id, done)
	if err := c.t.Send(ctx, id, method, params); err != nil {
		c.take(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case resp := <-done:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CallNearMiss gives the reply channel room for the one reply, so a late
// delivery never blocks, and forgets the call when it gives up.
// ok: orphansend
func (c *Conn) CallNearMiss(ctx context.Context, method string, params any) (*Response, error) {
	id := c.seq.Add(1)
	done := make(chan *Response, 1)
	c.register(id, done)
	if err := c.t.Send(ctx, id, method, params); err != nil {
		c.take(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case resp := <-done:
		return resp, nil
	case <-ctx.Done():
		c.take(id)
		return nil, ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Collecting metrics from plugins on a schedule.

// Metric is one sample.
type Metric struct {
	Name  string
	Value float64
}

// Collector gathers metrics; it honours ctx but a wedged plugin may take a
// while to notice.
type Collector interface {
	Collect(ctx context.Context) ([]Metric, error)
}

type collectResult struct {
	metrics []Metric
	err     error
}

// Agent runs collectors.
type Agent struct {
	collectors map[string]Collector
}

// CollectOne runs a collector bounded by ctx. The collector reports on an
// unbuffered channel; when the collection interval's context expires first,
// the collector's goroutine blocks on the send forever, one more each
// interval for a hung plugin.
// From: open-falcon-archive/agent#64
// bug: orphansend
func (a *Agent) CollectOne(ctx context.Context, name string) ([]Metric, error) {
	c, ok := a.collectors[name]
	if !ok {
		return nil, fmt.Errorf("no collector %q", name)
	}
	ch := make(chan collectResult)
	go func() {
		ms, err := c.Collect(ctx)
		ch <- collectResult{ms, err}
	}()
	select {
	case r := <-ch:
		return r.metrics, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("collector %s: %w", name, ctx.Err())
	}
}

// CollectOneNearMiss uses a one-slot buffer so the late result is dropped
// into the buffer and the goroutine exits.
// ok: orphansend
func (a *Agent) CollectOneNearMiss(ctx context.Context, name string) ([]Metric, error) {
	c, ok := a.collectors[name]
	if !ok {
		return nil, fmt.Errorf("no collector %q", name)
	}
	ch := make(chan collectResult, 1)
	go func() {
		ms, err := c.Collect(ctx)
		ch <- collectResult{ms, err}
	}()
	select {
	case r := <-ch:
		return r.metrics, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("collector %s: %w", name, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Running a pinned command with a timeout.

// ErrCmdTimeout reports that a command was killed after its timeout.
var ErrCmdTimeout = errors.New("command timed out")

// RunPinned starts cmd and waits at most timeout. Wait runs in a goroutine
// that reports on an unbuffered channel; on timeout the process is killed
// and the function returns, Wait then returns with nobody receiving, and
// the goroutine (holding the Cmd and its pipes) never exits.
// From: aquasecurity/tracee#5172
// bug: orphansend
func RunPinned(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return errors.Join(ErrCmdTimeout, cmd.Process.Kill())
	case <-ctx.Done():
		return errors.Join(ctx.Err(), cmd.Process.Kill())
	}
}

// RunPinnedNearMiss kills on timeout or cancellation and then receives
// Wait's result, so the goroutine always has a receiver.
// ok: orphansend
func RunPinnedNearMiss(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var reason error
	select {
	case err := <-done:
		return err
	case <-t.C:
		reason = ErrCmdTimeout
	case <-ctx.Done():
		reason = ctx.Err()
	}
	kerr := cmd.Process.Kill()
	<-done
	return errors.Join(reason, kerr)
}

// ---------------------------------------------------------------------------
// A generic call-with-timeout helper used by geocoders.

// withTimeout runs f under a deadline d past ctx and returns its result, or
// the context error if the deadline passes first; providers do not always
// return promptly on cancellation, which is why f runs in its own goroutine.
// f's result goes back on an unbuffered channel, so every geocoding call
// that times out leaves its goroutine blocked on the send.
// From: codingsince1985/geo-golang#1
// bug: orphansend
func withTimeout[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result)
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// withTimeoutNearMiss lets the sender give up too: the send selects on a
// channel that is closed when the caller returns.
// ok: orphansend
func withTimeoutNearMiss[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result)
	gone := make(chan struct{})
	defer close(gone)
	go func() {
		v, err := f(ctx)
		select {
		case ch <- result{v, err}:
		case <-gone:
		}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Location is a geocoded point.
type Location struct {
	Lat, Lng float64
}

// Geocoder resolves addresses with a remote provider.
type Geocoder struct {
	lookup  func(ctx context.Context, addr string) (Location, error)
	timeout time.Duration
}

// Geocode resolves addr through withTimeoutNearMiss.
// ok: orphansend
func (g *Geocoder) Geocode(ctx context.Context, addr string) (Location, error) {
	return withTimeoutNearMiss(ctx, g.timeout, func(ctx context.Context) (Location, error) { return g.lookup(ctx, addr) })
}

// ---------------------------------------------------------------------------
// Garbage collection streaming removed keys.

// Result is one GC outcome.
type Result struct {
	Key string
	Err error
}

// Blockstore lists and deletes keys.
type Blockstore interface {
	Keys(ctx context.Context) ([]string, error)
	Delete(ctx context.Context, key string) error
}

// GC removes unpinned keys and streams the outcome. The consumer stops
// reading when the user cancels; every later send in the goroutine (each
// removal, and the error for the canceled delete) blocks on the unbuffered
// channel and the GC goroutine never finishes or releases the GC lock.
// From: ipfs/kubo#4593
// bug: orphansend
func GC(ctx context.Context, bs Blockstore, pinned func(string) bool) <-chan Result {
	out := make(chan Result)
	go func() {
		defer close(out)
		keys, err := bs.Keys(ctx)
		if err != nil {
			out <- Result{Err: err}
			return
		}
		for _, k := range keys {
			if pinned(k) {
				continue
			}
			out <- Result{Key: k, Err: bs.Delete(ctx, k)}
		}
	}()
	return out
}

// GCNearMiss selects on ctx.Done for every send.
// ok: orphansend
func GCNearMiss(ctx context.Context, bs Blockstore, pinned func(string) bool) <-chan Result {
	out := make(chan Result)
	go func() {
		defer close(out)
		keys, err := bs.Keys(ctx)
		if err != nil {
			select {
			case out <- Result{Err: err}:
			case <-ctx.Done():
			}
			return
		}
		for _, k := range keys {
			if pinned(k) {
				continue
			}
			select {
			case out <- Result{Key: k, Err: bs.Delete(ctx, k)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// ---------------------------------------------------------------------------
// Fanning a render query out to storage backends.

// Series is a named series.
type Series struct {
	Name   string
	Points []float64
}

// Backend is one storage node.
type Backend struct {
	URL    string
	client *http.Client
}

// fetch GETs and decodes a backend's series; the body is read and closed
// before it returns.
// ok: orphansend
func (b *Backend) fetch(ctx context.Context, target string) ([]Series, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL+"/render?target="+target, nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", b.URL, resp.Status)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var ss []Series
	if err := json.Unmarshal(raw, &ss); err != nil {
		return nil, err
	}
	return ss, nil
}

type backendResult struct {
	series []Series
	err    error
}

// Render queries every backend and merges what arrives before ctx's
// deadline. Results come back on an unbuffered channel; once the deadline
// cuts the merge short, every backend still in flight blocks on its send
// for good.
// From: bookingcom/carbonapi#193
// bug: orphansend
func Render(ctx context.Context, backends []*Backend, target string) ([]Series, error) {
	results := make(chan backendResult)
	for _, b := range backends {
		go func() {
			ss, err := b.fetch(ctx, target)
			results <- backendResult{ss, err}
		}()
	}
	var merged []Series
	var errs []error
	for range backends {
		select {
		case r := <-results:
			merged = append(merged, r.series...)
			errs = append(errs, r.err)
		case <-ctx.Done():
			return merged, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return merged, errors.Join(errs...)
}

// RenderNearMiss sizes the channel to the number of senders.
// ok: orphansend
func RenderNearMiss(ctx context.Context, backends []*Backend, target string) ([]Series, error) {
	results := make(chan backendResult, len(backends))
	for _, b := range backends {
		go func() {
			ss, err := b.fetch(ctx, target)
			results <- backendResult{ss, err}
		}()
	}
	var merged []Series
	var errs []error
	for range backends {
		select {
		case r := <-results:
			merged = append(merged, r.series...)
			errs = append(errs, r.err)
		case <-ctx.Done():
			return merged, errors.Join(append(errs, ctx.Err())...)
		}
	}
	return merged, errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// OVSDB-style callbacks keyed by request ID.

// callback is a waiting request; ctx is the caller's context.
type callback struct {
	ctx      context.Context
	response chan []byte
}

// Client dispatches replies to callbacks.
type Client struct {
	mu        sync.Mutex
	callbacks map[string]*callback
}

// popCallback removes and returns a callback.
// ok: orphansend
func (c *Client) popCallback(id string) (*callback, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cb, ok := c.callbacks[id]
	delete(c.callbacks, id)
	return cb, ok
}

// doCallback runs in the connection's receive goroutine and hands a reply
// to its waiter. The send does not watch the waiter's context, so a reply
// for a caller that already returned on ctx.Done blocks the receive loop
// and stalls every other RPC on the connection.
// From: digitalocean/go-openvswitch#16
// bug: orphansend
func (c *Client) doCallback(id string, reply []byte) {
	cb, ok := c.popCallback(id)
	if !ok {
		return
	}
	cb.response <- reply
}

// doCallbackNearMiss abandons the send once the waiter's context is done.
// ok: orphansend
func (c *Client) doCallbackNearMiss(id string, reply []byte) {
	cb, ok := c.popCallback(id)
	if !ok {
		return
	}
	select {
	case cb.response <- reply:
	case <-cb.ctx.Done():
	}
}

// RPC registers a callback and waits for its reply or for ctx.
// ok: orphansend
func (c *Client) RPC(ctx context.Context, id string, send func() error) ([]byte, error) {
	cb := &callback{ctx: ctx, response: make(chan []byte)}
	c.mu.Lock()
	c.callbacks[id] = cb
	c.mu.Unlock()
	if err := send(); err != nil {
		c.popCallback(id)
		return nil, err
	}
	select {
	case r := <-cb.response:
		return r, nil
	case <-ctx.Done():
		c.popCallback(id)
		return nil, ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Correct functions that only look like orphaned sends.

// Probe runs check in a goroutine and, if ctx ends first, cancels the
// check and still receives its result, so the unbuffered send always has
// a receiver.
// ok: orphansend
func Probe(ctx context.Context, check func(context.Context) error) error {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error)
	go func() { done <- check(cctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		cancel()
		return errors.Join(ctx.Err(), <-done)
	}
}

// FirstOf returns the first successful answer from replicas; the losers
// are canceled when FirstOf returns and their sends select on a channel
// closed at the same time.
// ok: orphansend
func FirstOf(ctx context.Context, replicas []func(context.Context) (string, error)) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan string)
	failures := make(chan error)
	gone := make(chan struct{})
	defer close(gone)
	for _, r := range replicas {
		go func() {
			v, err := r(ctx)
			if err != nil {
				select {
				case failures <- err:
				case <-gone:
				}
				return
			}
			select {
			case answers <- v:
			case <-gone:
			}
		}()
	}
	var errs []error
	for range replicas {
		select {
		case v := <-answers:
			return v, nil
		case err := <-failures:
			errs = append(errs, err)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", errors.Join(errs...)
}

// Ready signals readiness by closing a channel rather than sending on it;
// a close never blocks, whether or not anyone is waiting.
// ok: orphansend
func Ready(ctx context.Context, warm func(context.Context) error) (<-chan struct{}, <-chan error) {
	ready := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		if err := warm(ctx); err != nil {
			errc <- err
			return
		}
		close(ready)
	}()
	return ready, errc
}
