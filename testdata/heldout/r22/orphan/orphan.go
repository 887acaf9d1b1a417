// Package orphan holds goroutines whose result send blocks forever because
// the receiver already returned.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// HDT3213/godis#31: waiting on a WaitGroup with a timeout.

// Wait is a WaitGroup that can be waited on with a timeout.
type Wait struct {
	wg sync.WaitGroup
}

// Add adds delta to the counter.
// ok: orphansend
func (w *Wait) Add(delta int) { w.wg.Add(delta) }

// Done decrements the counter.
// ok: orphansend
func (w *Wait) Done() { w.wg.Done() }

// WaitWithTimeout reports true if the timeout elapsed first.
// From: HDT3213/godis#31
// The helper goroutine signals on an unbuffered channel; after a timeout no
// one receives, so every timed-out wait leaks a goroutine.
// bug: orphansend
func (w *Wait) WaitWithTimeout(timeout time.Duration) bool {
	c := make(chan struct{})
	go func() {
		w.wg.Wait()
		c <- struct{}{}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c:
		return false
	case <-timer.C:
		return true
	}
}

// WaitWithTimeoutBuffered lets the helper complete its send and exit.
// From: HDT3213/godis#31
// ok: orphansend
func (w *Wait) WaitWithTimeoutBuffered(timeout time.Duration) bool {
	c := make(chan struct{}, 1)
	go func() {
		w.wg.Wait()
		c <- struct{}{}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c:
		return false
	case <-timer.C:
		return true
	}
}

// WaitWithTimeoutClose signals by closing, which never blocks.
// From: HDT3213/godis#31
// ok: orphansend
func (w *Wait) WaitWithTimeoutClose(timeout time.Duration) bool {
	c := make(chan struct{})
	go func() {
		defer close(c)
		w.wg.Wait()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c:
		return false
	case <-timer.C:
		return true
	}
}

// ---------------------------------------------------------------------------
// open-falcon/falcon-plus#2: RPC calls from the transfer to the graph nodes.

// RPCConn is a net/rpc style client.
type RPCConn interface {
	Call(method string, args, reply any) error
	Close() error
}

// GraphClient sends metric batches to one graph node.
type GraphClient struct {
	mu          sync.Mutex
	conn        RPCConn
	callTimeout time.Duration
}

// callResult carries the outcome of one RPC.
type callResult struct {
	err error
}

// reset drops the current connection after a failure.
// ok: orphansend
func (g *GraphClient) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.conn != nil {
		g.conn.Close()
		g.conn = nil
	}
}

// Send calls Graph.Send with a deadline on the call.
// From: open-falcon/falcon-plus#2
// The result channel is unbuffered; when the call times out the sender
// goroutine stays blocked on its send forever, one per slow call.
// bug: orphansend
func (g *GraphClient) Send(items []any, reply *string) error {
	g.mu.Lock()
	conn := g.conn
	g.mu.Unlock()
	if conn == nil {
		return errors.New("graph: not connected")
	}

	done := make(chan callResult)
	go func() {
		err := conn.Call("Graph.Send", items, reply)
		done <- callResult{err: err}
	}()

	timer := time.NewTimer(g.callTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			g.reset()
		}
		return r.err
	case <-timer.C:
		g.reset()
		return fmt.Errorf("graph: Graph.Send timed out after %s", g.callTimeout)
	}
}

// SendBuffered gives the result channel room for the late reply.
// From: open-falcon/falcon-plus#2
// ok: orphansend
func (g *GraphClient) SendBuffered(items []any, reply *string) error {
	g.mu.Lock()
	conn := g.conn
	g.mu.Unlock()
	if conn == nil {
		return errors.New("graph: not connected")
	}

	done := make(chan callResult, 1)
	go func() {
		err := conn.Call("Graph.Send", items, reply)
		done <- callResult{err: err}
	}()

	timer := time.NewTimer(g.callTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			g.reset()
		}
		return r.err
	case <-timer.C:
		g.reset()
		return fmt.Errorf("graph: Graph.Send timed out after %s", g.callTimeout)
	}
}

// ---------------------------------------------------------------------------
// lotusirous/go-concurrency-patterns#14: Google Search 2.1 with a deadline.

// Result is one search hit.
type Result string

// Search queries one backend.
type Search func(ctx context.Context, query string) Result

// Federated fans a query out to several backends.
type Federated struct {
	Backends []Search
	Budget   time.Duration
}

// Query collects what the backends return within the budget.
// From: lotusirous/go-concurrency-patterns#14
// All backends send on one unbuffered channel; once the deadline hits the
// loop returns and every backend still running blocks on its send.
// bug: orphansend
func (f *Federated) Query(ctx context.Context, query string) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Budget)
	defer cancel()

	c := make(chan Result)
	for _, search := range f.Backends {
		go func() { c <- search(ctx, query) }()
	}

	results := make([]Result, 0, len(f.Backends))
	for range f.Backends {
		select {
		case r := <-c:
			results = append(results, r)
		case <-ctx.Done():
			return results, ctx.Err()
		}
	}
	return results, nil
}

// QueryBuffered sizes the channel so every backend can deliver and exit.
// From: lotusirous/go-concurrency-patterns#14
// ok: orphansend
func (f *Federated) QueryBuffered(ctx context.Context, query string) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Budget)
	defer cancel()

	c := make(chan Result, len(f.Backends))
	for _, search := range f.Backends {
		go func() { c <- search(ctx, query) }()
	}

	results := make([]Result, 0, len(f.Backends))
	for range f.Backends {
		select {
		case r := <-c:
			results = append(results, r)
		case <-ctx.Done():
			return results, ctx.Err()
		}
	}
	return results, nil
}

// ---------------------------------------------------------------------------
// fullstorydev/grpchan#17: in-process unary RPCs.

// Handler is a unary server method.
type Handler func(ctx context.Context, req any) (any, error)

// InProcChannel dispatches RPCs to handlers in the same process.
type InProcChannel struct {
	handlers map[string]Handler
	copyResp func(dst, src any) error
}

// rpcResult is what the handler goroutine produces.
type rpcResult struct {
	resp any
	err  error
}

// Invoke runs the handler and copies its response into resp.
// From: fullstorydev/grpchan#17
// If the caller's context ends first Invoke returns, and the handler
// goroutine blocks forever on the unbuffered result channel.
// bug: orphansend
func (ch *InProcChannel) Invoke(ctx context.Context, method string, req, resp any) error {
	h, ok := ch.handlers[method]
	if !ok {
		return fmt.Errorf("inprocgrpc: unknown method %s", method)
	}
	results := make(chan rpcResult)
	go func() {
		r, err := h(ctx, req)
		results <- rpcResult{resp: r, err: err}
	}()

	select {
	case r := <-results:
		if r.err != nil {
			return r.err
		}
		return ch.copyResp(resp, r.resp)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// InvokeSelect makes the handler goroutine give up its send when the
// caller's context is done.
// From: fullstorydev/grpchan#17
// ok: orphansend
func (ch *InProcChannel) InvokeSelect(ctx context.Context, method string, req, resp any) error {
	h, ok := ch.handlers[method]
	if !ok {
		return fmt.Errorf("inprocgrpc: unknown method %s", method)
	}
	results := make(chan rpcResult)
	go func() {
		r, err := h(ctx, req)
		select {
		case results <- rpcResult{resp: r, err: err}:
		case <-ctx.Done():
		}
	}()

	select {
	case r := <-results:
		if r.err != nil {
			return r.err
		}
		return ch.copyResp(resp, r.resp)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// restatedev/sdk-go#132: pumping the request body of an invocation.

// readResult is one chunk read from the request stream.
type readResult struct {
	buf []byte
	err error
}

// Invocation reads protocol frames from the request body.
type Invocation struct {
	readChan chan readResult
	wg       sync.WaitGroup
}

// NewInvocation prepares an invocation.
// ok: orphansend
func NewInvocation() *Invocation {
	return &Invocation{readChan: make(chan readResult)}
}

// pumpBody reads body and feeds chunks to Next.
// From: restatedev/sdk-go#132
// Once the invocation finishes, Next stops being called; the pump is then
// stuck forever on its unconditional send to readChan.
// bug: orphansend
func (inv *Invocation) pumpBody(ctx context.Context, body io.Reader) {
	inv.wg.Add(1)
	go func() {
		defer inv.wg.Done()
		for {
			buf := make([]byte, 4096)
			n, err := body.Read(buf)
			inv.readChan <- readResult{buf: buf[:n], err: err}
			if err != nil {
				return
			}
		}
	}()
}

// pumpBodyCtx abandons its send when the invocation context is done.
// From: restatedev/sdk-go#132
// ok: orphansend
func (inv *Invocation) pumpBodyCtx(ctx context.Context, body io.Reader) {
	inv.wg.Add(1)
	go func() {
		defer inv.wg.Done()
		for {
			buf := make([]byte, 4096)
			n, err := body.Read(buf)
			select {
			case inv.readChan <- readResult{buf: buf[:n], err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

// Next returns the next chunk or the context error.
// ok: orphansend
func (inv *Invocation) Next(ctx context.Context) ([]byte, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-inv.readChan:
		return r.buf, r.err
	}
}

// Wait blocks until the pump goroutine has exited.
// ok: orphansend
func (inv *Invocation) Wait() { inv.wg.Wait() }

// ---------------------------------------------------------------------------
// lestrrat-go/backoff#30: the back-off controller's next channel.

// Controller paces retries by sending on Next.
type Controller struct {
	next     chan struct{}
	interval time.Duration
	max      int
	wg       sync.WaitGroup
}

// start runs loop in a goroutine tracked by c.wg.
// ok: orphansend
func (c *Controller) start(ctx context.Context, loop func(context.Context)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		loop(ctx)
	}()
}

// NewController starts the pacing goroutine with the original loop.
// ok: orphansend
func NewController(ctx context.Context, interval time.Duration, maxRetries int) *Controller {
	c := &Controller{next: make(chan struct{}), interval: interval, max: maxRetries}
	c.start(ctx, c.run)
	return c
}

// NewGuardedController starts the pacing goroutine with the fixed loop.
// ok: orphansend
func NewGuardedController(ctx context.Context, interval time.Duration, maxRetries int) *Controller {
	c := &Controller{next: make(chan struct{}), interval: interval, max: maxRetries}
	c.start(ctx, c.runCtx)
	return c
}

// Wait blocks until the pacing goroutine exits.
// ok: orphansend
func (c *Controller) Wait() { c.wg.Wait() }

// run sends one tick per attempt, waiting interval between them.
// From: lestrrat-go/backoff#30
// After the first attempt each send is unconditional; when ctx is cancelled
// the consumer stops reading and run blocks on c.next forever.
// bug: orphansend
func (c *Controller) run(ctx context.Context) {
	defer close(c.next)
	select {
	case c.next <- struct{}{}:
	case <-ctx.Done():
		return
	}
	timer := time.NewTimer(c.interval)
	defer timer.Stop()
	for i := 1; i < c.max; i++ {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		c.next <- struct{}{}
		timer.Reset(c.interval)
	}
}

// runCtx guards every send with ctx.Done.
// From: lestrrat-go/backoff#30
// ok: orphansend
func (c *Controller) runCtx(ctx context.Context) {
	defer close(c.next)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for i := 0; i < c.max; i++ {
		select {
		case c.next <- struct{}{}:
		case <-ctx.Done():
			return
		}
		timer.Reset(c.interval)
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}

// Continue reports whether another attempt may start.
// ok: orphansend
func Continue(ctx context.Context, c *Controller) bool {
	select {
	case <-ctx.Done():
		return false
	case _, ok := <-c.next:
		return ok
	}
}
