package untracked

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

type batchRequest struct {
	id      uint64
	payload []byte
}

type batchConn interface {
	Send(reqs []batchRequest) error
	Recv() ([]byte, error)
	Close() error
}

// BatchClient multiplexes small requests over one long-lived stream.
type BatchClient struct {
	conn     batchConn
	reqCh    chan batchRequest
	closeCh  chan struct{}
	wg       sync.WaitGroup
	onResp   func([]byte)
	maxBatch int
	mu       sync.Mutex
	started  bool
}

// NewBatchClient wires a client around an established stream.
// ok: untrackedgo
func NewBatchClient(conn batchConn, onResp func([]byte)) *BatchClient {
	return &BatchClient{
		conn:     conn,
		reqCh:    make(chan batchRequest, 128),
		closeCh:  make(chan struct{}),
		onResp:   onResp,
		maxBatch: 64,
	}
}

// Start launches the send and receive loops.
// From: pingcap/tidb#10599
// bug: untrackedgo
func (c *BatchClient) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return
	}
	c.started = true

	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.sendLoop()
	}()
	go c.recvLoop()
	log.Printf("batch client: started (max batch %d)", c.maxBatch)
}

// ok: untrackedgo
func (c *BatchClient) sendLoop() {
	batch := make([]batchRequest, 0, c.maxBatch)
	for {
		select {
		case <-c.closeCh:
			return
		case req := <-c.reqCh:
			batch = append(batch[:0], req)
		drain:
			for len(batch) < c.maxBatch {
				select {
				case r := <-c.reqCh:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			if err := c.conn.Send(batch); err != nil {
				log.Printf("batch client: send %d requests: %v", len(batch), err)
			}
		}
	}
}

// ok: untrackedgo
func (c *BatchClient) recvLoop() {
	for {
		resp, err := c.conn.Recv()
		if err != nil {
			select {
			case <-c.closeCh:
			default:
				log.Printf("batch client: recv: %v", err)
			}
			return
		}
		c.onResp(resp)
	}
}

// Close stops both loops and waits for them.
// ok: untrackedgo
func (c *BatchClient) Close() error {
	close(c.closeCh)
	err := c.conn.Close()
	c.wg.Wait()
	return err
}

// BatchClientNearMiss is a BatchClient whose Start tracks both loops.
type BatchClientNearMiss struct{ BatchClient }

// ok: untrackedgo
func (c *BatchClientNearMiss) Start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return
	}
	c.started = true

	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.sendLoop()
	}()
	go func() {
		defer c.wg.Done()
		c.recvLoop()
	}()
	log.Printf("batch client: started (max batch %d)", c.maxBatch)
}

// RouteServer keeps outbound connections to cluster peers.
type RouteServer struct {
	mu       sync.Mutex
	running  bool
	quit     chan struct{}
	grWG     sync.WaitGroup
	dial     func(addr string) (net.Conn, error)
	routes   map[string]net.Conn
	retryGap time.Duration
}

// ok: untrackedgo
func (s *RouteServer) isRunning() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// connectToRoute dials addr until it succeeds or the server quits.
// ok: untrackedgo
func (s *RouteServer) connectToRoute(addr string) {
	for attempt := 1; s.isRunning(); attempt++ {
		conn, err := s.dial(addr)
		if err == nil {
			s.mu.Lock()
			s.routes[addr] = conn
			s.mu.Unlock()
			return
		}
		log.Printf("route %s: attempt %d: %v", addr, attempt, err)
		t := time.NewTimer(s.retryGap)
		select {
		case <-s.quit:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// SolicitRoutes connects to every configured peer in the background.
// ok: untrackedgo
func (s *RouteServer) SolicitRoutes(peers []string) {
	for _, addr := range peers {
		s.grWG.Add(1)
		go func() {
			defer s.grWG.Done()
			s.connectToRoute(addr)
		}()
	}
}

// ReconnectRoute drops a broken route and dials it again.
// From: nats-io/nats-server#250
// bug: untrackedgo
func (s *RouteServer) ReconnectRoute(addr string) {
	s.mu.Lock()
	if conn, ok := s.routes[addr]; ok {
		if err := conn.Close(); err != nil {
			log.Printf("route %s: close: %v", addr, err)
		}
		delete(s.routes, addr)
	}
	running := s.running
	s.mu.Unlock()

	if !running {
		return
	}
	log.Printf("route %s: reconnecting", addr)
	go s.connectToRoute(addr)
}

// Shutdown closes every route and waits for the dialers.
// ok: untrackedgo
func (s *RouteServer) Shutdown() {
	s.mu.Lock()
	if !s.running {
		s.mu.Unlock()
		return
	}
	s.running = false
	close(s.quit)
	for addr, conn := range s.routes {
		if err := conn.Close(); err != nil {
			log.Printf("route %s: close: %v", addr, err)
		}
	}
	s.mu.Unlock()
	s.grWG.Wait()
}

// RouteServerNearMiss counts the redial goroutine too.
type RouteServerNearMiss struct{ RouteServer }

// ok: untrackedgo
func (s *RouteServerNearMiss) ReconnectRoute(addr string) {
	s.mu.Lock()
	if conn, ok := s.routes[addr]; ok {
		if err := conn.Close(); err != nil {
			log.Printf("route %s: close: %v", addr, err)
		}
		delete(s.routes, addr)
	}
	running := s.running
	if running {
		s.grWG.Add(1)
	}
	s.mu.Unlock()

	if !running {
		return
	}
	log.Printf("route %s: reconnecting", addr)
	go func() {
		defer s.grWG.Done()
		s.connectToRoute(addr)
	}()
}

// ChunkServer answers chunk lookups over raw TCP.
type ChunkServer struct {
	mu     sync.Mutex
	ln     net.Listener
	handle func(net.Conn) error
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	closed bool
}

// Serve accepts connections until the listener is closed.
// From: attic-labs/noms#233
// bug: untrackedgo
func (s *ChunkServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		go func() {
			defer conn.Close()
			if err := s.handle(conn); err != nil {
				log.Printf("chunk server %s: %v", conn.RemoteAddr(), err)
			}
		}()
	}
}

// Stop closes the listener.
// ok: untrackedgo
func (s *ChunkServer) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.ln == nil {
		return nil
	}
	return s.ln.Close()
}

// ChunkServerNearMiss tracks its connections so Stop can end them.
type ChunkServerNearMiss struct{ ChunkServer }

// ok: untrackedgo
func (s *ChunkServerNearMiss) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	s.conns = make(map[net.Conn]struct{})
	s.mu.Unlock()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			conn.Close()
			return nil
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, conn)
				s.mu.Unlock()
				conn.Close()
			}()
			if err := s.handle(conn); err != nil {
				log.Printf("chunk server %s: %v", conn.RemoteAddr(), err)
			}
		}()
	}
}

// ok: untrackedgo
func (s *ChunkServerNearMiss) Stop() error {
	s.mu.Lock()
	s.closed = true
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	}
	for conn := range s.conns {
		conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// APIServer is the agent's HTTP API.
type APIServer struct {
	ln      net.Listener
	handler http.Handler
	grace   time.Duration
	mu      sync.Mutex
	state   string
}

// ok: untrackedgo
func (s *APIServer) setState(st string) {
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
}

// Run serves until stop is closed, then shuts down gracefully.
// From: ccfos/huatuo#793
// bug: untrackedgo
func (s *APIServer) Run(stop <-chan struct{}) error {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- srv.Serve(s.ln)
	}()
	s.setState("running")

	select {
	case err := <-serveErr:
		s.setState("stopped")
		return fmt.Errorf("serve: %w", err)
	case <-stop:
	}

	shutCtx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		s.setState("stopped")
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	err := <-serveErr
	s.setState("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// APIServerNearMiss forces the server closed when the grace period ends.
type APIServerNearMiss struct{ APIServer }

// ok: untrackedgo
func (s *APIServerNearMiss) Run(stop <-chan struct{}) error {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- srv.Serve(s.ln)
	}()
	s.setState("running")

	select {
	case err := <-serveErr:
		s.setState("stopped")
		return fmt.Errorf("serve: %w", err)
	case <-stop:
	}

	shutCtx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	shutErr := srv.Shutdown(shutCtx)
	if shutErr != nil {
		shutErr = errors.Join(shutErr, srv.Close())
	}
	err := <-serveErr
	s.setState("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(shutErr, err)
}

type ruleRunner interface {
	RunRule(ctx context.Context, id string) error
}

// ReplicationHandler exposes replication rules over HTTP.
type ReplicationHandler struct {
	svc        ruleRunner
	runTimeout time.Duration
	wg         sync.WaitGroup
}

// ManualRun starts a replication rule and answers 202 right away.
// From: nexspence/nexspence#254
// bug: untrackedgo
func (h *ReplicationHandler) ManualRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" {
		http.Error(w, "missing rule id", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	go func() {
		if err := h.svc.RunRule(ctx, id); err != nil {
			log.Printf("replication rule %s: manual run: %v", id, err)
		}
	}()
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "{\"rule\":%q,\"status\":\"started\"}\n", id)
}

// ReplicationHandlerNearMiss gives the run its own bounded lifetime.
type ReplicationHandlerNearMiss struct{ ReplicationHandler }

// ok: untrackedgo
func (h *ReplicationHandlerNearMiss) ManualRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" {
		http.Error(w, "missing rule id", http.StatusBadRequest)
		return
	}
	// The run must outlive the request that triggered it: keep the request's
	// values but not its cancellation, bound it by runTimeout, and let Wait
	// collect it at shutdown.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.runTimeout)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		if err := h.svc.RunRule(ctx, id); err != nil {
			log.Printf("replication rule %s: manual run: %v", id, err)
		}
	}()
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "{\"rule\":%q,\"status\":\"started\"}\n", id)
}

// Wait blocks until every manual run has finished.
// ok: untrackedgo
func (h *ReplicationHandler) Wait() {
	h.wg.Wait()
}
