// Package untracked holds go statements that nothing joins or bounds, so
// work outlives the component that started it.
package untracked

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// ---------------------------------------------------------------------------
// Swarm node with a metrics goroutine.

// gauges holds the node's exported metrics.
type gauges struct {
	mu    sync.Mutex
	peers int
	chunk int
}

// Node is a storage node that can be started and stopped repeatedly.
type Node struct {
	gaugeInterval time.Duration
	serve         func(quit <-chan struct{})
	stats         func() (peers, chunks int)
	metrics       gauges
	quit          chan struct{}
	wg            sync.WaitGroup
}

// updateGauges copies current stats into the gauges.
// ok: untrackedgo
func (n *Node) updateGauges() {
	p, c := n.stats()
	n.metrics.mu.Lock()
	n.metrics.peers, n.metrics.chunk = p, c
	n.metrics.mu.Unlock()
}

// Start launches the serving loop and a gauge updater. The updater loops on
// its ticker forever: Stop does not end it and a restarted node gets a second
// one next to the first.
// From: ethersphere/swarm#1156
// bug: untrackedgo
func (n *Node) Start() {
	n.quit = make(chan struct{})
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		n.serve(n.quit)
	}()
	go func() {
		ticker := time.NewTicker(n.gaugeInterval)
		defer ticker.Stop()
		for range ticker.C {
			n.updateGauges()
		}
	}()
}

// StartNearMiss ties the gauge updater to quit and the WaitGroup.
// ok: untrackedgo
func (n *Node) StartNearMiss() {
	n.quit = make(chan struct{})
	n.wg.Add(2)
	go func() {
		defer n.wg.Done()
		n.serve(n.quit)
	}()
	go func() {
		defer n.wg.Done()
		ticker := time.NewTicker(n.gaugeInterval)
		defer ticker.Stop()
		for {
			select {
			case <-n.quit:
				return
			case <-ticker.C:
				n.updateGauges()
			}
		}
	}()
}

// Stop signals the node's goroutines and waits for the tracked ones.
// ok: untrackedgo
func (n *Node) Stop() {
	close(n.quit)
	n.wg.Wait()
}

// ---------------------------------------------------------------------------
// Event pipeline with input plugins.

// Event is one chain event.
type Event struct {
	Type    string
	Payload []byte
}

// Input is an input plugin.
type Input interface {
	Events() <-chan Event
}

// Pipeline fans events from inputs into the filter stage.
type Pipeline struct {
	inputs   []Input
	filterCh chan Event
	done     chan struct{}
	wg       sync.WaitGroup
}

// NewPipeline builds a pipeline over inputs.
// ok: untrackedgo
func NewPipeline(inputs []Input) *Pipeline {
	return &Pipeline{inputs: inputs, filterCh: make(chan Event, 64), done: make(chan struct{})}
}

// Start forwards every input into the filter channel. The forwarders are not
// counted anywhere, so Stop returns while they may still be handing events to
// the filter stage, and the filter channel can never be closed safely.
// From: blinklabs-io/adder#45
// bug: untrackedgo
func (p *Pipeline) Start() {
	for _, in := range p.inputs {
		go func() {
			for evt := range in.Events() {
				select {
				case p.filterCh <- evt:
				case <-p.done:
					return
				}
			}
		}()
	}
}

// Stop signals the forwarders to stop.
// ok: untrackedgo
func (p *Pipeline) Stop() {
	close(p.done)
}

// StartNearMiss counts the forwarders in the WaitGroup.
// ok: untrackedgo
func (p *Pipeline) StartNearMiss() {
	for _, in := range p.inputs {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for evt := range in.Events() {
				select {
				case p.filterCh <- evt:
				case <-p.done:
					return
				}
			}
		}()
	}
}

// StopNearMiss waits for the forwarders before closing their output.
// ok: untrackedgo
func (p *Pipeline) StopNearMiss() {
	close(p.done)
	p.wg.Wait()
	close(p.filterCh)
}

// ---------------------------------------------------------------------------
// Cloud CLI loading servers in parallel.

// Server is a cloud server record.
type Server struct {
	ID   string
	Name string
}

// CloudClient talks to the cloud API.
type CloudClient struct {
	getServer func(ctx context.Context, id string) (Server, error)
}

// LoadServers fetches every server in parallel. The WaitGroup is incremented
// inside each goroutine, so Wait can return before any of them has started
// and the result channel is closed under their feet.
// From: gridscale/gscloud#159
// bug: untrackedgo
func (c *CloudClient) LoadServers(ctx context.Context, ids []string) ([]Server, error) {
	var wg sync.WaitGroup
	type result struct {
		s   Server
		err error
	}
	results := make(chan result, len(ids))
	for _, id := range ids {
		go func() {
			id := id
			wg.Add(1)
			defer wg.Done()
			s, err := c.getServer(ctx, id)
			results <- result{s, err}
		}()
	}
	wg.Wait()
	close(results)

	var out []Server
	for r := range results {
		if r.err != nil {
			return nil, fmt.Errorf("load server: %w", r.err)
		}
		out = append(out, r.s)
	}
	return out, nil
}

// LoadServersNearMiss adds to the WaitGroup before starting each goroutine.
// ok: untrackedgo
func (c *CloudClient) LoadServersNearMiss(ctx context.Context, ids []string) ([]Server, error) {
	var wg sync.WaitGroup
	type result struct {
		s   Server
		err error
	}
	results := make(chan result, len(ids))
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.getServer(ctx, id)
			results <- result{s, err}
		}()
	}
	wg.Wait()
	close(results)

	var out []Server
	for r := range results {
		if r.err != nil {
			return nil, fmt.Errorf("load server: %w", r.err)
		}
		out = append(out, r.s)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Queue daemon with background loops.

// WaitGroupWrapper runs functions in goroutines and waits for all of them.
type WaitGroupWrapper struct {
	sync.WaitGroup
}

// Wrap runs cb in a goroutine counted by the wrapper.
// ok: untrackedgo
func (w *WaitGroupWrapper) Wrap(cb func()) {
	w.Add(1)
	go func() {
		defer w.Done()
		cb()
	}()
}

// Daemon is a message queue daemon.
type Daemon struct {
	exitCh      chan struct{}
	lookupLoop  func(exit <-chan struct{})
	queueScan   func(exit <-chan struct{})
	persistMeta func() error
	waitGroup   WaitGroupWrapper
}

// Main starts the daemon's background loops. Exit later closes exitCh and
// persists metadata right away, racing the loops that are still running.
// From: nsqio/nsq#14
// bug: untrackedgo
func (d *Daemon) Main() {
	d.exitCh = make(chan struct{})
	for _, loop := range []func(<-chan struct{}){d.lookupLoop, d.queueScan} {
		go loop(d.exitCh)
	}
}

// Exit signals the loops and saves metadata.
// ok: untrackedgo
func (d *Daemon) Exit() error {
	close(d.exitCh)
	return d.persistMeta()
}

// MainNearMiss runs the loops through the WaitGroupWrapper.
// ok: untrackedgo
func (d *Daemon) MainNearMiss() {
	d.exitCh = make(chan struct{})
	for _, loop := range []func(<-chan struct{}){d.lookupLoop, d.queueScan} {
		d.waitGroup.Wrap(func() { loop(d.exitCh) })
	}
}

// ExitNearMiss waits for the loops before saving metadata.
// ok: untrackedgo
func (d *Daemon) ExitNearMiss() error {
	close(d.exitCh)
	d.waitGroup.Wait()
	return d.persistMeta()
}

// ---------------------------------------------------------------------------
// Running a view from a service.

// View is a unit of protocol work.
type View interface {
	Name() string
}

// ViewManager runs views.
type ViewManager interface {
	InitiateView(ctx context.Context, v View) (any, error)
	ReportFailure(v View, err error)
}

// RunView runs v in the background and returns at once. Nothing can wait for
// it, so a caller that shuts down next leaves the view holding its sessions
// and transactions.
// From: LFDT-Panurus/panurus#2134
// bug: untrackedgo
func RunView(ctx context.Context, mgr ViewManager, v View) {
	go func() {
		if _, err := mgr.InitiateView(ctx, v); err != nil {
			mgr.ReportFailure(v, err)
		}
	}()
}

// RunViewNearMiss returns a channel that yields the view's outcome.
// ok: untrackedgo
func RunViewNearMiss(ctx context.Context, mgr ViewManager, v View) <-chan error {
	done := make(chan error, 1)
	go func() {
		defer close(done)
		_, err := mgr.InitiateView(ctx, v)
		done <- err
	}()
	return done
}

// ---------------------------------------------------------------------------
// Asterisk manager socket.

// Socket is an AMI connection with a background reader.
type Socket struct {
	conn     net.Conn
	r        *bufio.Reader
	incoming chan string
	quit     chan struct{}
	done     chan struct{}
}

// Dial connects to the manager interface and starts the reader. Close shuts
// the connection but never waits for run, which may still be pushing lines.
// From: heltonmarx/goami#42
// bug: untrackedgo
func Dial(ctx context.Context, addr string) (*Socket, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ami dial %s: %w", addr, err)
	}
	s := &Socket{conn: conn, r: bufio.NewReader(conn), incoming: make(chan string, 32), quit: make(chan struct{})}
	go s.run()
	return s, nil
}

// run reads lines until the connection fails or quit is closed.
// ok: untrackedgo
func (s *Socket) run() {
	if s.done != nil {
		defer close(s.done)
	}
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return
		}
		select {
		case s.incoming <- line:
		case <-s.quit:
			return
		}
	}
}

// Close stops the socket.
// ok: untrackedgo
func (s *Socket) Close() error {
	close(s.quit)
	return s.conn.Close()
}

// DialNearMiss records a done channel that CloseNearMiss waits on.
// ok: untrackedgo
func DialNearMiss(ctx context.Context, addr string) (*Socket, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ami dial %s: %w", addr, err)
	}
	s := &Socket{conn: conn, r: bufio.NewReader(conn), incoming: make(chan string, 32), quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s, nil
}

// CloseNearMiss stops the socket and waits for the reader to exit.
// ok: untrackedgo
func (s *Socket) CloseNearMiss() error {
	close(s.quit)
	err := s.conn.Close()
	<-s.done
	return err
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// Crawl fetches pages in parallel through an errgroup and waits for all of
// them before returning.
// ok: untrackedgo
func Crawl(ctx context.Context, urls []string, fetch func(context.Context, string) ([]byte, error)) ([][]byte, error) {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	pages := make([][]byte, len(urls))
	for i, u := range urls {
		g.Go(func() error {
			b, err := fetch(ctx, u)
			if err != nil {
				return fmt.Errorf("fetch %s: %w", u, err)
			}
			pages[i] = b
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return pages, nil
}

// ErrTimeout is returned by CallWithTimeout when fn overruns.
var ErrTimeout = errors.New("call timed out")

// CallWithTimeout runs fn in a goroutine and waits for it or the deadline. The
// goroutine is handed the bounded context and its result channel is
// buffered, so it ends on its own shortly after the deadline.
// ok: untrackedgo
func CallWithTimeout(ctx context.Context, d time.Duration, fn func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- fn(ctx) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return errors.Join(ErrTimeout, ctx.Err())
	}
}

// Flush runs the flush in the background and waits for its done signal.
// ok: untrackedgo
func Flush(ctx context.Context, flush func(context.Context) error) error {
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = flush(ctx)
	}()
	<-done
	return err
}
