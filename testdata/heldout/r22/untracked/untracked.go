// Package untracked holds go statements that nothing joins or bounds.
package untracked

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Logger is the minimal logging surface the cases use.
type Logger interface {
	Printf(format string, args ...any)
}

// ---------------------------------------------------------------------------
// nictuku/dht#50: the DHT's background loops on shutdown.

// Packet is one datagram read from the socket.
type Packet struct {
	Data []byte
	From net.Addr
}

// DHT is a small Kademlia node.
type DHT struct {
	listen    func() (net.PacketConn, error)
	handle    func(Packet)
	bootstrap func(ctx context.Context)
	logger    Logger
}

// readLoop reads datagrams until the socket is closed.
// ok: untrackedgo
func (d *DHT) readLoop(conn net.PacketConn, out chan<- Packet, stop <-chan struct{}) {
	buf := make([]byte, 4096)
	for {
		n, addr, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		p := Packet{Data: append([]byte(nil), buf[:n]...), From: addr}
		select {
		case out <- p:
		case <-stop:
			return
		}
	}
}

// Run serves the DHT until ctx is cancelled.
// From: nictuku/dht#50
// The read loop and the bootstrap loop are started with bare go statements;
// Run returns as soon as ctx ends, while both may still touch the node.
// bug: untrackedgo
func (d *DHT) Run(ctx context.Context) error {
	conn, err := d.listen()
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := make(chan struct{})
	defer close(stop)

	packets := make(chan Packet)
	go d.readLoop(conn, packets, stop)
	go d.bootstrap(ctx)

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case p := <-packets:
			d.handle(p)
		}
	}
}

// RunTracked waits for its loops before returning.
// From: nictuku/dht#50
// ok: untrackedgo
func (d *DHT) RunTracked(ctx context.Context) error {
	conn, err := d.listen()
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		conn.Close()
		wg.Wait()
	}()

	packets := make(chan Packet)
	wg.Add(2)
	go func() {
		defer wg.Done()
		d.readLoop(conn, packets, stop)
	}()
	go func() {
		defer wg.Done()
		d.bootstrap(ctx)
	}()

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case p := <-packets:
			d.handle(p)
		}
	}
}

// ---------------------------------------------------------------------------
// topfreegames/maestro#167: the worker manager's Stop.

// Worker processes one scheduler's operations.
type Worker interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context)
}

// WorkerManager runs one worker per scheduler.
type WorkerManager struct {
	mu      sync.Mutex
	build   func(scheduler string) Worker
	workers map[string]Worker
	logger  Logger
	wg      sync.WaitGroup
}

// Start launches a worker for each scheduler.
// From: topfreegames/maestro#167
// Each worker runs in an untracked goroutine, so Stop returns while workers
// are still executing operations against storage being torn down.
// bug: untrackedgo
func (m *WorkerManager) Start(ctx context.Context, schedulers []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range schedulers {
		if _, ok := m.workers[name]; ok {
			continue
		}
		w := m.build(name)
		m.workers[name] = w
		go func() {
			if err := w.Start(ctx); err != nil {
				m.logger.Printf("worker %s stopped: %v", name, err)
			}
		}()
	}
}

// StartTracked registers each worker goroutine with the manager's
// WaitGroup so StopAndWait can wait for them.
// From: topfreegames/maestro#167
// ok: untrackedgo
func (m *WorkerManager) StartTracked(ctx context.Context, schedulers []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range schedulers {
		if _, ok := m.workers[name]; ok {
			continue
		}
		w := m.build(name)
		m.workers[name] = w
		m.wg.Go(func() {
			if err := w.Start(ctx); err != nil {
				m.logger.Printf("worker %s stopped: %v", name, err)
			}
		})
	}
}

// StopAndWait stops every worker and waits for their goroutines.
// ok: untrackedgo
func (m *WorkerManager) StopAndWait(ctx context.Context) {
	m.mu.Lock()
	for _, w := range m.workers {
		w.Stop(ctx)
	}
	m.mu.Unlock()
	m.wg.Wait()
}

// ---------------------------------------------------------------------------
// esiqveland/notify#11: the notifier's event loop and Close.

// Signal is a D-Bus signal delivered to the notifier.
type Signal struct {
	Name string
	Body []any
}

// Notifier listens for notification signals.
type Notifier struct {
	signals chan Signal
	done    chan struct{}
	wg      sync.WaitGroup
	onClose func(id uint32)
	closed  atomic.Bool
	// subscribe registers the signal channel with the bus.
	subscribe func(chan<- Signal) bool
}

// eventLoop dispatches signals until done is closed.
// ok: untrackedgo
func (n *Notifier) eventLoop() {
	for {
		select {
		case <-n.done:
			return
		case s := <-n.signals:
			if s.Name == "NotificationClosed" && len(s.Body) > 0 {
				if id, ok := s.Body[0].(uint32); ok && n.onClose != nil {
					n.onClose(id)
				}
			}
		}
	}
}

// NewNotifier starts the event loop.
// From: esiqveland/notify#11
// wg.Add runs inside the new goroutine, so a Close issued before it is
// scheduled sees a zero counter and returns while the loop is still live.
// bug: untrackedgo
func NewNotifier(signals chan Signal, onClose func(uint32), subscribe func(chan<- Signal) bool) *Notifier {
	n := &Notifier{signals: signals, done: make(chan struct{}), onClose: onClose, subscribe: subscribe}
	go func() {
		if n.subscribe != nil && !n.subscribe(signals) {
			return
		}
		n.wg.Add(1)
		defer n.wg.Done()
		n.eventLoop()
	}()
	return n
}

// NewNotifierTracked counts the loop before starting it.
// From: esiqveland/notify#11
// ok: untrackedgo
func NewNotifierTracked(signals chan Signal, onClose func(uint32), subscribe func(chan<- Signal) bool) (*Notifier, error) {
	if !subscribe(signals) {
		return nil, errors.New("notify: could not subscribe to notification signals")
	}
	n := &Notifier{signals: signals, done: make(chan struct{}), onClose: onClose, subscribe: subscribe}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		n.eventLoop()
	}()
	return n, nil
}

// Close stops the event loop and waits for it. It is safe to call twice.
// ok: untrackedgo
func (n *Notifier) Close() error {
	if n.closed.Swap(true) {
		return nil
	}
	close(n.done)
	n.wg.Wait()
	return nil
}

// ---------------------------------------------------------------------------
// InVisionApp/go-health#35: periodic health checks after Stop.

// Check is one health check.
type Check struct {
	Name     string
	Interval time.Duration
	Run      func() error
}

// Health runs checks on their own intervals.
type Health struct {
	mu      sync.Mutex
	states  map[string]error
	tickers map[string]*time.Ticker
	stop    chan struct{}
	wg      sync.WaitGroup
}

// record stores the latest result of a check.
// ok: untrackedgo
func (h *Health) record(name string, err error) {
	h.mu.Lock()
	h.states[name] = err
	h.mu.Unlock()
}

// startRunner runs c every Interval in the background.
// From: InVisionApp/go-health#35
// The goroutine ranges over ticker.C; Stop only stops the ticker, which does
// not close the channel, so every runner goroutine blocks forever.
// bug: untrackedgo
func (h *Health) startRunner(c Check) {
	ticker := time.NewTicker(c.Interval)
	h.mu.Lock()
	h.tickers[c.Name] = ticker
	h.mu.Unlock()
	go func() {
		for range ticker.C {
			h.record(c.Name, c.Run())
		}
	}()
}

// startRunnerStoppable exits on the stop channel and is counted in wg.
// From: InVisionApp/go-health#35
// ok: untrackedgo
func (h *Health) startRunnerStoppable(c Check) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ticker := time.NewTicker(c.Interval)
		defer ticker.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-ticker.C:
				h.record(c.Name, c.Run())
			}
		}
	}()
}

// Stop ends the stoppable runners and waits for them.
// ok: untrackedgo
func (h *Health) Stop() {
	h.mu.Lock()
	for _, t := range h.tickers {
		t.Stop()
	}
	h.mu.Unlock()
	close(h.stop)
	h.wg.Wait()
	h.mu.Lock()
	h.states = map[string]error{}
	h.mu.Unlock()
}

// ---------------------------------------------------------------------------
// nbari/violetear#14: per-request response writer.

type closeNotifier interface {
	CloseNotify() <-chan bool
}

// ResponseWriter records the status and whether the client went away.
type ResponseWriter struct {
	http.ResponseWriter
	status  int
	aborted atomic.Bool
}

// WriteHeader records the status code.
// ok: untrackedgo
func (w *ResponseWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// NewResponseWriter wraps w for one request.
// From: nbari/violetear#14
// One goroutine per request waits on CloseNotify, which is never signalled
// for a request that completes normally, so each request leaks a goroutine.
// bug: untrackedgo
func NewResponseWriter(w http.ResponseWriter) *ResponseWriter {
	rw := &ResponseWriter{ResponseWriter: w, status: http.StatusOK}
	if cn, ok := w.(closeNotifier); ok {
		notify := cn.CloseNotify()
		go func() {
			<-notify
			rw.aborted.Store(true)
		}()
	}
	return rw
}

// Router wraps handlers with a ResponseWriter.
type Router struct {
	next http.Handler
}

// ServeHTTP ties the abort flag to the request context instead of a
// goroutine; the callback is deregistered when the handler returns.
// From: nbari/violetear#14
// ok: untrackedgo
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &ResponseWriter{ResponseWriter: w, status: http.StatusOK}
	stop := context.AfterFunc(r.Context(), func() { rw.aborted.Store(true) })
	defer stop()
	rt.next.ServeHTTP(rw, r)
}

// ---------------------------------------------------------------------------
// maurice2k/tcpserver#1: graceful Shutdown and active connections.

// Server is a TCP server with graceful shutdown.
type Server struct {
	listener     net.Listener
	handler      func(net.Conn)
	shuttingDown atomic.Bool
	connWG       sync.WaitGroup
}

// Serve accepts connections until the listener is closed.
// From: maurice2k/tcpserver#1
// Connection goroutines are never added to connWG, so Shutdown's Wait
// returns at once and the process exits while requests are mid-flight.
// bug: untrackedgo
func (s *Server) Serve() error {
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			if s.shuttingDown.Load() {
				return nil
			}
			return err
		}
		go func() {
			defer conn.Close()
			s.handler(conn)
		}()
	}
}

// ServeTracked counts each connection before starting its goroutine.
// From: maurice2k/tcpserver#1
// ok: untrackedgo
func (s *Server) ServeTracked() error {
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			if s.shuttingDown.Load() {
				return nil
			}
			return err
		}
		s.connWG.Add(1)
		go func() {
			defer s.connWG.Done()
			defer conn.Close()
			s.handler(conn)
		}()
	}
}

// Shutdown stops accepting and waits for active connections to finish.
// ok: untrackedgo
func (s *Server) Shutdown() error {
	s.shuttingDown.Store(true)
	err := s.listener.Close()
	s.connWG.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
