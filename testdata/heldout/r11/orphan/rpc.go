package orphan

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// ErrSendTimeout is returned when a push does not complete in time.
var ErrSendTimeout = errors.New("send timed out")

type discoveryStream interface {
	Send(resp []byte) error
}

// PushConnection pushes configuration to one proxy.
type PushConnection struct {
	stream      discoveryStream
	sendTimeout time.Duration
	proxyID     string
}

// Push sends resp, giving up after the configured timeout.
// From: istio/istio#15897
// bug: orphansend
func (c *PushConnection) Push(resp []byte) error {
	done := make(chan error)
	t := time.NewTimer(c.sendTimeout)
	defer t.Stop()
	go func() {
		err := c.stream.Send(resp)
		done <- err
	}()
	select {
	case <-t.C:
		log.Printf("push to %s: timed out after %s", c.proxyID, c.sendTimeout)
		return ErrSendTimeout
	case err := <-done:
		if err != nil {
			return fmt.Errorf("push to %s: %w", c.proxyID, err)
		}
		return nil
	}
}

// PushNearMiss buffers the result so the sender can always finish.
// ok: orphansend
func (c *PushConnection) PushNearMiss(resp []byte) error {
	done := make(chan error, 1)
	t := time.NewTimer(c.sendTimeout)
	defer t.Stop()
	go func() {
		err := c.stream.Send(resp)
		done <- err
	}()
	select {
	case <-t.C:
		log.Printf("push to %s: timed out after %s", c.proxyID, c.sendTimeout)
		return ErrSendTimeout
	case err := <-done:
		if err != nil {
			return fmt.Errorf("push to %s: %w", c.proxyID, err)
		}
		return nil
	}
}

// SubmitResponse is the batcher's answer to one request.
type SubmitResponse struct {
	TraceID string
	Err     string
}

type submitStream interface {
	Send(traceID string, payload []byte) error
	Recv() (*SubmitResponse, error)
}

// RouterStream correlates batcher responses with waiting submitters.
type RouterStream struct {
	mu      sync.Mutex
	pending map[string]chan *SubmitResponse
	client  submitStream
	timeout time.Duration
}

// Submit forwards a request and waits for its response.
// From: hyperledger/fabric-x-orderer#36
// bug: orphansend
func (s *RouterStream) Submit(ctx context.Context, traceID string, payload []byte) (*SubmitResponse, error) {
	ch := make(chan *SubmitResponse)
	s.mu.Lock()
	s.pending[traceID] = ch
	s.mu.Unlock()

	if err := s.client.Send(traceID, payload); err != nil {
		s.mu.Lock()
		delete(s.pending, traceID)
		s.mu.Unlock()
		return nil, fmt.Errorf("send %s: %w", traceID, err)
	}

	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case resp := <-ch:
		return resp, nil
	case <-t.C:
		return nil, fmt.Errorf("request %s: no response after %s", traceID, s.timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ReadResponses delivers each response to the submitter waiting for it.
// ok: orphansend
func (s *RouterStream) ReadResponses() error {
	for {
		resp, err := s.client.Recv()
		if err != nil {
			return err
		}
		s.mu.Lock()
		ch, ok := s.pending[resp.TraceID]
		delete(s.pending, resp.TraceID)
		s.mu.Unlock()
		if !ok {
			log.Printf("router: response for unknown request %s", resp.TraceID)
			continue
		}
		ch <- resp
	}
}

// SubmitNearMiss gives each waiter a one-slot channel and deregisters it
// when it stops waiting.
// ok: orphansend
func (s *RouterStream) SubmitNearMiss(ctx context.Context, traceID string, payload []byte) (*SubmitResponse, error) {
	ch := make(chan *SubmitResponse, 1)
	s.mu.Lock()
	s.pending[traceID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, traceID)
		s.mu.Unlock()
	}()

	if err := s.client.Send(traceID, payload); err != nil {
		return nil, fmt.Errorf("send %s: %w", traceID, err)
	}

	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case resp := <-ch:
		return resp, nil
	case <-t.C:
		return nil, fmt.Errorf("request %s: no response after %s", traceID, s.timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type eventReader interface {
	ReadEvent() (map[string]string, error)
	Close() error
}

// EventConn is a connection to a telephony event socket.
type EventConn struct {
	r      eventReader
	events chan map[string]string
	errc   chan error
	closed chan struct{}
	once   sync.Once
}

// readLoop pumps events until the socket fails.
// From: fiorix/go-eventsocket#8
// bug: orphansend
func (c *EventConn) readLoop() {
	for {
		ev, err := c.r.ReadEvent()
		if err != nil {
			c.errc <- err
			return
		}
		select {
		case c.events <- ev:
		case <-c.closed:
			return
		}
	}
}

// ReadEvent returns the next event or the read error.
// ok: orphansend
func (c *EventConn) ReadEvent(ctx context.Context) (map[string]string, error) {
	select {
	case ev := <-c.events:
		return ev, nil
	case err := <-c.errc:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close closes the socket and stops the read loop.
// ok: orphansend
func (c *EventConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.r.Close()
	})
	return err
}

// readLoopNearMiss stops trying to report the error once the conn is closed.
// ok: orphansend
func (c *EventConn) readLoopNearMiss() {
	for {
		ev, err := c.r.ReadEvent()
		if err != nil {
			select {
			case c.errc <- err:
			case <-c.closed:
			}
			return
		}
		select {
		case c.events <- ev:
		case <-c.closed:
			return
		}
	}
}

// DoLocal runs handler in-process and returns the recorded response.
// From: erigontech/erigon#16665
// bug: orphansend
func DoLocal(handler http.Handler, r *http.Request) (*httptest.ResponseRecorder, error) {
	ans := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		ans <- rec
	}()
	select {
	case res := <-ans:
		return res, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// DoLocalNearMiss lets the handler goroutine park its result and exit.
// ok: orphansend
func DoLocalNearMiss(handler http.Handler, r *http.Request) (*httptest.ResponseRecorder, error) {
	ans := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		ans <- rec
	}()
	select {
	case res := <-ans:
		return res, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// Rule derives new facts from existing ones.
type Rule interface {
	Apply(facts map[string]bool) (map[string]bool, error)
}

// ErrMaxIterations is returned when evaluation does not converge.
var ErrMaxIterations = errors.New("datalog: too many iterations")

// World evaluates rules to a fixed point under time and iteration limits.
type World struct {
	rules       []Rule
	facts       map[string]bool
	maxDuration time.Duration
	maxIter     int
	mu          sync.Mutex
}

// ok: orphansend
func (w *World) step() (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := len(w.facts)
	for _, r := range w.rules {
		derived, err := r.Apply(w.facts)
		if err != nil {
			return false, err
		}
		for f := range derived {
			w.facts[f] = true
		}
	}
	return len(w.facts) == before, nil
}

// Run evaluates all rules, stopping at the time limit.
// From: eclipse-biscuit/biscuit-go#166
// bug: orphansend
func (w *World) Run() error {
	ctx, cancel := context.WithTimeout(context.Background(), w.maxDuration)
	defer cancel()
	done := make(chan error)
	go func() {
		for i := 0; i < w.maxIter; i++ {
			if ctx.Err() != nil {
				return
			}
			fixed, err := w.step()
			if err != nil {
				done <- err
				return
			}
			if fixed {
				done <- nil
				return
			}
		}
		done <- ErrMaxIterations
	}()
	select {
	case <-ctx.Done():
		return fmt.Errorf("datalog: %w", ctx.Err())
	case err := <-done:
		return err
	}
}

// RunNearMiss uses a one-slot channel so a late result is never stuck.
// ok: orphansend
func (w *World) RunNearMiss() error {
	ctx, cancel := context.WithTimeout(context.Background(), w.maxDuration)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < w.maxIter; i++ {
			if ctx.Err() != nil {
				return
			}
			fixed, err := w.step()
			if err != nil {
				done <- err
				return
			}
			if fixed {
				done <- nil
				return
			}
		}
		done <- ErrMaxIterations
	}()
	select {
	case <-ctx.Done():
		return fmt.Errorf("datalog: %w", ctx.Err())
	case err := <-done:
		return err
	}
}
