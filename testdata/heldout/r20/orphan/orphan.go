// Package orphan holds result sends that block forever because the receiver
// already gave up.
package orphan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// RPC client with pending replies (topfreegames/pitaya#316)

// Response is a reply from a remote server.
type Response struct {
	ID   uint64
	Data []byte
}

// wireConn writes requests; replies arrive through Dispatch.
type wireConn interface {
	WriteRequest(id uint64, route string, payload []byte) error
}

// RemoteClient matches replies to outstanding calls.
type RemoteClient struct {
	conn    wireConn
	timeout time.Duration

	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan *Response
}

// NewRemoteClient builds a client.
//
// ok: orphansend
func NewRemoteClient(conn wireConn, timeout time.Duration) *RemoteClient {
	return &RemoteClient{conn: conn, timeout: timeout, pending: make(map[uint64]chan *Response)}
}

// register allocates an ID for ch.
//
// ok: orphansend
func (c *RemoteClient) register(ch chan *Response) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	c.pending[c.nextID] = ch
	return c.nextID
}

// unregister forgets a call.
//
// ok: orphansend
func (c *RemoteClient) unregister(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

// Dispatch is called by the connection's read loop for every reply.
//
// ok: orphansend
func (c *RemoteClient) Dispatch(resp *Response) {
	c.mu.Lock()
	ch := c.pending[resp.ID]
	c.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
}

// Call sends a request and waits for its reply.
// From: topfreegames/pitaya#316
// the reply channel is unbuffered; when Call times out after Dispatch has
// looked the channel up, the read loop blocks forever sending the late reply
//
// bug: orphansend
func (c *RemoteClient) Call(ctx context.Context, route string, payload []byte) (*Response, error) {
	ch := make(chan *Response)
	id := c.register(ch)
	defer c.unregister(id)
	if err := c.conn.WriteRequest(id, route, payload); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("call %s: %w", route, ctx.Err())
	}
}

// CallNearMiss gives the reply channel room for the one reply.
// From: topfreegames/pitaya#316
//
// ok: orphansend
func (c *RemoteClient) CallNearMiss(ctx context.Context, route string, payload []byte) (*Response, error) {
	ch := make(chan *Response, 1)
	id := c.register(ch)
	defer c.unregister(id)
	if err := c.conn.WriteRequest(id, route, payload); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("call %s: %w", route, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Bounded retry (hashicorp/terraform#25546)

// retryLoop calls fn until it succeeds or ctx ends.
//
// ok: orphansend
func retryLoop(ctx context.Context, interval time.Duration, fn func(context.Context) error) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-t.C:
		}
	}
}

// RetryWithin retries fn for at most timeout.
// From: hashicorp/terraform#25546
// errCh is unbuffered; when the timeout arm wins, the retry goroutine later
// finishes and blocks forever sending its result
//
// bug: orphansend
func RetryWithin(ctx context.Context, timeout, interval time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	errCh := make(chan error)
	go func() {
		errCh <- retryLoop(ctx, interval, fn)
	}()
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		return fmt.Errorf("timeout after %s: %w", timeout, ctx.Err())
	}
}

// RetryWithinNearMiss buffers errCh so the late result can be dropped.
// From: hashicorp/terraform#25546
//
// ok: orphansend
func RetryWithinNearMiss(ctx context.Context, timeout, interval time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	errCh := make(chan error, 1)
	go func() {
		errCh <- retryLoop(ctx, interval, fn)
	}()
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		return fmt.Errorf("timeout after %s: %w", timeout, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Concurrent test clients (codecrafters-io/redis-tester#222)

// TestClient runs one scripted client session.
type TestClient interface {
	Run(ctx context.Context) error
}

// RunClients runs every client and returns the first error.
// From: codecrafters-io/redis-tester#222
// returning on the first error stops reading the unbuffered channel, so the
// other clients block forever on their send and the closer never finishes
//
// bug: orphansend
func RunClients(ctx context.Context, clients []TestClient) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error)
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.Run(ctx)
		}()
	}
	go func() {
		wg.Wait()
		close(errs)
	}()
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// RunClientsNearMiss gives every client a slot in the error channel.
// From: codecrafters-io/redis-tester#222
//
// ok: orphansend
func RunClientsNearMiss(ctx context.Context, clients []TestClient) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(clients))
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.Run(ctx)
		}()
	}
	go func() {
		wg.Wait()
		close(errs)
	}()
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Device translation call (xmidt-org/tr1d1um#57)

// DeviceReply is the decoded answer from a device.
type DeviceReply struct {
	Status  int             `json:"statusCode"`
	Payload json.RawMessage `json:"payload"`
}

// Translator forwards requests to devices through the message router.
type Translator struct {
	client *http.Client
	url    string
}

// NewTranslator builds a translator.
//
// ok: orphansend
func NewTranslator(client *http.Client, url string) *Translator {
	return &Translator{client: client, url: url}
}

// fetchReply performs the request and decodes the reply.
//
// ok: orphansend
func (t *Translator) fetchReply(ctx context.Context, device string) (*DeviceReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url+"/device/"+device, nil)
	if err != nil {
		return nil, err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r DeviceReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

type replyResult struct {
	reply *DeviceReply
	err   error
}

// Query asks a device for its state.
// From: xmidt-org/tr1d1um#57
// when ctx times out the caller returns, and the worker goroutine blocks
// forever on the unconditional send of its result
//
// bug: orphansend
func (t *Translator) Query(ctx context.Context, device string) (*DeviceReply, error) {
	results := make(chan replyResult)
	go func() {
		r, err := t.fetchReply(ctx, device)
		results <- replyResult{reply: r, err: err}
	}()
	select {
	case res := <-results:
		return res.reply, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// QueryNearMiss sends the result only while someone is still waiting.
// From: xmidt-org/tr1d1um#57
//
// ok: orphansend
func (t *Translator) QueryNearMiss(ctx context.Context, device string) (*DeviceReply, error) {
	results := make(chan replyResult)
	go func() {
		r, err := t.fetchReply(ctx, device)
		select {
		case results <- replyResult{reply: r, err: err}:
		case <-ctx.Done():
		}
	}()
	select {
	case res := <-results:
		return res.reply, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Stream sender (buildbuddy-io/buildbuddy#9409)

// Message is one chunk of an upload stream.
type Message struct {
	Offset int64
	Data   []byte
}

// stream is the client side of a gRPC-style stream.
type stream interface {
	Send(m *Message) error
}

// Sender pushes messages to a stream from a dedicated goroutine.
type Sender struct {
	ctx      context.Context
	sendChan chan *Message
	errChan  chan error
}

// NewSender starts the send loop; it exits when ctx ends or a send fails.
//
// ok: orphansend
func NewSender(ctx context.Context, s stream) *Sender {
	snd := &Sender{ctx: ctx, sendChan: make(chan *Message, 1), errChan: make(chan error, 1)}
	go snd.loop(s)
	return snd
}

// loop forwards messages until the context ends or the stream fails.
//
// ok: orphansend
func (s *Sender) loop(st stream) {
	for {
		select {
		case <-s.ctx.Done():
			s.errChan <- context.Cause(s.ctx)
			return
		case m := <-s.sendChan:
			if err := st.Send(m); err != nil {
				s.errChan <- err
				return
			}
		}
	}
}

// SendWithTimeout queues msg for the send loop.
// From: buildbuddy-io/buildbuddy#9409
// once the stream context is cancelled the loop has exited; the first send
// fills the buffer and the next one blocks forever with nobody receiving
//
// bug: orphansend
func (s *Sender) SendWithTimeout(msg *Message, timeout time.Duration) error {
	s.sendChan <- msg
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-s.errChan:
		return err
	case <-t.C:
		return nil
	}
}

// SendWithTimeoutNearMiss stops trying to queue once the stream context ends.
// From: buildbuddy-io/buildbuddy#9409
//
// ok: orphansend
func (s *Sender) SendWithTimeoutNearMiss(msg *Message, timeout time.Duration) error {
	select {
	case s.sendChan <- msg:
	case <-s.ctx.Done():
		return context.Cause(s.ctx)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-s.errChan:
		return err
	case <-t.C:
		return nil
	}
}

// ---------------------------------------------------------------------------
// First replica wins (go-lang-plugin-org/go-lang-idea-plugin#2251)

// SearchResult is one replica's answer.
type SearchResult struct {
	Replica string
	Hits    []string
}

// Replica answers a search query.
type Replica func(ctx context.Context, query string) SearchResult

// First returns the answer of the fastest replica.
// From: go-lang-plugin-org/go-lang-idea-plugin#2251
// only one value is received from the unbuffered channel, so every slower
// replica goroutine blocks forever on its send
//
// bug: orphansend
func First(ctx context.Context, query string, replicas ...Replica) (SearchResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := make(chan SearchResult)
	for _, r := range replicas {
		go func() { c <- r(ctx, query) }()
	}
	select {
	case res := <-c:
		return res, nil
	case <-ctx.Done():
		return SearchResult{}, ctx.Err()
	}
}

// FirstNearMiss buffers one slot per replica.
// From: go-lang-plugin-org/go-lang-idea-plugin#2251
//
// ok: orphansend
func FirstNearMiss(ctx context.Context, query string, replicas ...Replica) (SearchResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := make(chan SearchResult, len(replicas))
	for _, r := range replicas {
		go func() { c <- r(ctx, query) }()
	}
	select {
	case res := <-c:
		return res, nil
	case <-ctx.Done():
		return SearchResult{}, ctx.Err()
	}
}
