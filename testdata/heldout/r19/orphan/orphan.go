// Package orphan holds goroutines whose result send blocks forever because
// the receiver already gave up.
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
// RPC connection pool with call timeout

// RPCConn is a pooled RPC connection.
type RPCConn interface {
	Call(method string, args, reply any) error
	Close() error
}

// RPCConnPool keeps idle connections to one backend.
type RPCConnPool struct {
	name        string
	callTimeout time.Duration
	dial        func() (RPCConn, error)
	idle        chan RPCConn
}

// fetch returns an idle connection or dials a new one.
//
// ok: orphansend
func (p *RPCConnPool) fetch() (RPCConn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	c, err := p.dial()
	if err != nil {
		return nil, fmt.Errorf("%s: dial: %w", p.name, err)
	}
	return c, nil
}

// release returns a healthy connection to the pool, closing it if the pool is full.
//
// ok: orphansend
func (p *RPCConnPool) release(c RPCConn) {
	select {
	case p.idle <- c:
	default:
		_ = c.Close()
	}
}

// Call performs one RPC with the pool's call timeout.
// From: open-falcon-archive/transfer#14
// done is unbuffered; when the timeout wins, Call closes the connection and returns, and the RPC goroutine then blocks forever sending its error to done
//
// bug: orphansend
func (p *RPCConnPool) Call(method string, args, reply any) error {
	conn, err := p.fetch()
	if err != nil {
		return err
	}
	done := make(chan error)
	go func() {
		done <- conn.Call(method, args, reply)
	}()
	select {
	case <-time.After(p.callTimeout):
		_ = conn.Close()
		return fmt.Errorf("%s: call %s timeout", p.name, method)
	case err := <-done:
		if err != nil {
			_ = conn.Close()
			return fmt.Errorf("%s: call %s: %w", p.name, method, err)
		}
		p.release(conn)
		return nil
	}
}

// CallNearMiss is Call with a one-slot result channel so the RPC goroutine can always finish.
// From: open-falcon-archive/transfer#14
//
// ok: orphansend
func (p *RPCConnPool) CallNearMiss(method string, args, reply any) error {
	conn, err := p.fetch()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		done <- conn.Call(method, args, reply)
	}()
	select {
	case <-time.After(p.callTimeout):
		_ = conn.Close()
		return fmt.Errorf("%s: call %s timeout", p.name, method)
	case err := <-done:
		if err != nil {
			_ = conn.Close()
			return fmt.Errorf("%s: call %s: %w", p.name, method, err)
		}
		p.release(conn)
		return nil
	}
}

// ---------------------------------------------------------------------------
// Bucket provisioner controller

// Controller reconciles bucket claims until its context ends.
type Controller interface {
	Start(ctx context.Context, threadiness int) error
}

// Provisioner runs the bucket claim controller.
type Provisioner struct {
	controller  Controller
	threadiness int
}

// RunWithContext runs the controller until ctx ends or the controller fails.
// From: kube-object-storage/lib-bucket-provisioner#218
// on ctx.Done the function returns without reading errCh; the controller goroutine finishes shutting down and blocks forever on its unbuffered send
//
// bug: orphansend
func (p *Provisioner) RunWithContext(ctx context.Context) error {
	errCh := make(chan error)
	go func() {
		errCh <- p.controller.Start(ctx, p.threadiness)
	}()
	select {
	case err := <-errCh:
		if err != nil {
			return fmt.Errorf("bucket controller: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RunWithContextNearMiss is RunWithContext collecting the controller's result after cancellation.
// From: kube-object-storage/lib-bucket-provisioner#218
//
// ok: orphansend
func (p *Provisioner) RunWithContextNearMiss(ctx context.Context) error {
	errCh := make(chan error, 1)
	go func() {
		errCh <- p.controller.Start(ctx, p.threadiness)
	}()
	select {
	case err := <-errCh:
		if err != nil {
			return fmt.Errorf("bucket controller: %w", err)
		}
		return nil
	case <-ctx.Done():
		if err := <-errCh; err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("bucket controller shutdown: %w", err)
		}
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// DHT findprovs command

// QueryEvent is one streamed result of a DHT query.
type QueryEvent struct {
	Type string
	ID   string
}

// Routing finds content providers.
type Routing interface {
	// FindProvidersAsync streams providers; the channel closes when the
	// search ends or ctx is done.
	FindProvidersAsync(ctx context.Context, key string, limit int) <-chan string
}

// DHTNode answers DHT commands.
type DHTNode struct {
	routing Routing
}

// findProvs streams provider events for key to the command response.
// From: ipfs/kubo#4413
// the producer writes to the unbuffered events channel without watching ctx; when the client cancels and the response emitter stops reading, the goroutine blocks on the send forever
//
// bug: orphansend
func (n *DHTNode) findProvs(ctx context.Context, key string, limit int) <-chan QueryEvent {
	events := make(chan QueryEvent)
	go func() {
		defer close(events)
		for p := range n.routing.FindProvidersAsync(ctx, key, limit) {
			events <- QueryEvent{Type: "provider", ID: p}
		}
	}()
	return events
}

// findProvsNearMiss is findProvs selecting on ctx.Done for every send.
// From: ipfs/kubo#4413
//
// ok: orphansend
func (n *DHTNode) findProvsNearMiss(ctx context.Context, key string, limit int) <-chan QueryEvent {
	events := make(chan QueryEvent)
	go func() {
		defer close(events)
		for p := range n.routing.FindProvidersAsync(ctx, key, limit) {
			select {
			case events <- QueryEvent{Type: "provider", ID: p}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return events
}

// ---------------------------------------------------------------------------
// Event logger pipeline graph

// Event is an audit event flowing through pipelines.
type Event struct {
	Type    string
	Payload map[string]any
}

// NodeStatus is the result of one pipeline for one event.
type NodeStatus struct {
	Pipeline string
	Err      error
}

// Status aggregates per-pipeline results.
type Status struct {
	Complete []string
	Warnings []error
}

// add folds one pipeline result in.
//
// ok: orphansend
func (s *Status) add(ns NodeStatus) {
	if ns.Err != nil {
		s.Warnings = append(s.Warnings, ns.Err)
		return
	}
	s.Complete = append(s.Complete, ns.Pipeline)
}

// Pipeline processes events through a chain of nodes.
type Pipeline struct {
	ID  string
	Run func(ctx context.Context, e *Event) error
}

// Graph fans events out to registered pipelines.
type Graph struct {
	roots []Pipeline
}

// Process sends e through every pipeline and gathers their status.
// From: hashicorp/go-eventlogger#7
// when ctx ends Process returns, but each pipeline goroutine still does an unguarded send on statusCh and blocks forever, and so does the closer waiting on wg
//
// bug: orphansend
func (g *Graph) Process(ctx context.Context, e *Event) (Status, error) {
	statusCh := make(chan NodeStatus)
	var wg sync.WaitGroup
	for _, p := range g.roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statusCh <- NodeStatus{Pipeline: p.ID, Err: p.Run(ctx, e)}
		}()
	}
	go func() {
		wg.Wait()
		close(statusCh)
	}()
	var st Status
	for {
		select {
		case ns, ok := <-statusCh:
			if !ok {
				return st, nil
			}
			st.add(ns)
		case <-ctx.Done():
			return st, ctx.Err()
		}
	}
}

// ProcessNearMiss is Process with senders that give up on ctx.Done and a drain before returning.
// From: hashicorp/go-eventlogger#7
//
// ok: orphansend
func (g *Graph) ProcessNearMiss(ctx context.Context, e *Event) (Status, error) {
	statusCh := make(chan NodeStatus)
	var wg sync.WaitGroup
	for _, p := range g.roots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := NodeStatus{Pipeline: p.ID, Err: p.Run(ctx, e)}
			select {
			case statusCh <- ns:
			case <-ctx.Done():
			}
		}()
	}
	go func() {
		wg.Wait()
		close(statusCh)
	}()
	var st Status
	for {
		select {
		case ns, ok := <-statusCh:
			if !ok {
				return st, nil
			}
			st.add(ns)
		case <-ctx.Done():
			for range statusCh {
			}
			return st, ctx.Err()
		}
	}
}

// ---------------------------------------------------------------------------
// HTTP/2 server connection writer

// Frame is an HTTP/2 frame ready to be written.
type Frame struct {
	StreamID uint32
	Payload  []byte
}

// serverConn serialises frame writes through a single writer goroutine.
type serverConn struct {
	bw     io.Writer
	writer chan *Frame
	closed chan struct{} // closed when writeLoop exits
	done   chan struct{} // closed when the server shuts down

	mu      sync.Mutex
	streams map[uint32]struct{}
}

// writeLoop writes queued frames until the connection fails or the server stops.
//
// ok: orphansend
func (sc *serverConn) writeLoop() {
	defer close(sc.closed)
	for {
		select {
		case fr := <-sc.writer:
			if _, err := sc.bw.Write(fr.Payload); err != nil {
				return
			}
		case <-sc.done:
			return
		}
	}
}

// maxFrameSize is the largest DATA payload written in one frame.
const maxFrameSize = 16 << 10

// responseFrames splits a response into HEADERS and DATA frames.
//
// ok: orphansend
func responseFrames(streamID uint32, headers, body []byte) []*Frame {
	frames := []*Frame{{StreamID: streamID, Payload: headers}}
	for len(body) > 0 {
		n := min(len(body), maxFrameSize)
		frames = append(frames, &Frame{StreamID: streamID, Payload: body[:n]})
		body = body[n:]
	}
	return frames
}

// handleEndRequest queues the response frames of a finished stream.
// From: dgrr/http2#46
// once writeLoop has exited on a write error nobody reads sc.writer, so queuing a response with more frames than the channel buffer blocks the stream handler forever
//
// bug: orphansend
func (sc *serverConn) handleEndRequest(streamID uint32, headers, body []byte) {
	frames := responseFrames(streamID, headers, body)
	for _, fr := range frames {
		sc.writer <- fr
	}
	sc.mu.Lock()
	delete(sc.streams, streamID)
	sc.mu.Unlock()
}

// handleEndRequestNearMiss is handleEndRequest giving up once the writer has exited.
// From: dgrr/http2#46
//
// ok: orphansend
func (sc *serverConn) handleEndRequestNearMiss(streamID uint32, headers, body []byte) {
	frames := responseFrames(streamID, headers, body)
	for _, fr := range frames {
		select {
		case sc.writer <- fr:
		case <-sc.closed:
			return
		}
	}
	sc.mu.Lock()
	delete(sc.streams, streamID)
	sc.mu.Unlock()
}

// ---------------------------------------------------------------------------
// gRPC-Web websocket wrapper

// WebSocket is the minimal websocket API used by the wrapper.
type WebSocket interface {
	ReadMessage() ([]byte, error)
}

// wsConn adapts a websocket to a request body stream.
type wsConn struct {
	ws          WebSocket
	frames      chan []byte
	closeNotify chan bool
	cancel      context.CancelFunc
}

// readLoop pumps websocket messages into frames until the socket fails.
// From: improbable-eng/grpc-web#253
// on read error the loop sends on the unbuffered closeNotify channel, but the handler stops selecting on it once the stream finishes, so the reader goroutine blocks forever
//
// bug: orphansend
func (w *wsConn) readLoop(ctx context.Context) {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			w.closeNotify <- true
			return
		}
		select {
		case w.frames <- msg:
		case <-ctx.Done():
			return
		}
	}
}

// readLoopNearMiss is readLoop signalling closure by cancelling the stream context.
// From: improbable-eng/grpc-web#253
//
// ok: orphansend
func (w *wsConn) readLoopNearMiss(ctx context.Context) {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			w.cancel()
			return
		}
		select {
		case w.frames <- msg:
		case <-ctx.Done():
			return
		}
	}
}
