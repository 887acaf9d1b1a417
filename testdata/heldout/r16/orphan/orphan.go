// Package orphan holds request/response code in which a goroutine hands its
// result back over a channel: a chat server, a browser automation library,
// a peer-to-peer node, a DNS proxy, a resolver and a map-reduce helper.
package orphan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"strings"
	"sync"
	"time"
)

// Chat server

// ChatServer relays lines between connected clients.
type ChatServer struct {
	idleTimeout time.Duration
	mu          sync.Mutex
	clients     map[net.Conn]struct{}
}

// NewChatServer returns a server that drops clients idle for longer than
// idle.
//
// ok: orphansend
func NewChatServer(idle time.Duration) *ChatServer {
	return &ChatServer{idleTimeout: idle, clients: make(map[net.Conn]struct{})}
}

// broadcast writes line to every connected client.
//
// ok: orphansend
func (s *ChatServer) broadcast(from net.Conn, line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		if c == from {
			continue
		}
		fmt.Fprintf(c, "%s: %s\n", from.RemoteAddr(), strings.ToUpper(line))
	}
}

// serveClient relays the client's lines to the others, disconnecting the
// client once it has been silent for the idle timeout.
//
// From: sahilm/shouter#1
// bug: orphansend
func (s *ChatServer) serveClient(conn net.Conn) {
	s.mu.Lock()
	s.clients[conn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, conn)
		s.mu.Unlock()
		conn.Close()
	}()

	sc := bufio.NewScanner(conn)
	for {
		scanned := make(chan bool)
		go func() { scanned <- sc.Scan() }()
		select {
		case ok := <-scanned:
			if !ok {
				return
			}
			s.broadcast(conn, sc.Text())
		case <-time.After(s.idleTimeout):
			fmt.Fprintln(conn, "disconnected: idle")
			return
		}
	}
}

// serveClientNearMiss relays the client's lines to the others,
// disconnecting the client once it has been silent for the idle timeout. The
// scan result channel has room for the pending result.
//
// ok: orphansend
func (s *ChatServer) serveClientNearMiss(conn net.Conn) {
	s.mu.Lock()
	s.clients[conn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, conn)
		s.mu.Unlock()
		conn.Close()
	}()

	sc := bufio.NewScanner(conn)
	for {
		scanned := make(chan bool, 1)
		go func() { scanned <- sc.Scan() }()
		select {
		case ok := <-scanned:
			if !ok {
				return
			}
			s.broadcast(conn, sc.Text())
		case <-time.After(s.idleTimeout):
			fmt.Fprintln(conn, "disconnected: idle")
			return
		}
	}
}

// Browser automation selectors

// Node is a DOM node returned by a query.
type Node struct {
	NodeID int64
	Value  string
}

// TargetHandler talks to one browser target.
type TargetHandler interface {
	QueryAll(ctx context.Context, selector string) ([]Node, error)
}

// Selector waits for nodes matching a query and passes them to after.
type Selector struct {
	sel   string
	after func(ctx context.Context, h TargetHandler, nodes ...Node) error
	poll  time.Duration
}

// waitNodes polls the target until the selector matches at least one node.
//
// ok: orphansend
func (s *Selector) waitNodes(ctx context.Context, h TargetHandler) ([]Node, error) {
	for {
		nodes, err := h.QueryAll(ctx, s.sel)
		if err != nil {
			return nil, err
		}
		if len(nodes) > 0 {
			return nodes, nil
		}
		t := time.NewTimer(s.poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// run starts the selector in a goroutine and returns the channel on which
// its outcome is delivered.
//
// From: chromedp/chromedp#162
// bug: orphansend
func (s *Selector) run(ctx context.Context, h TargetHandler) chan error {
	ch := make(chan error)
	go func() {
		nodes, err := s.waitNodes(ctx, h)
		if err != nil {
			ch <- err
			return
		}
		ch <- s.after(ctx, h, nodes...)
	}()
	return ch
}

// Do runs the selector and waits for its outcome or for ctx to end.
//
// ok: orphansend
func (s *Selector) Do(ctx context.Context, h TargetHandler) error {
	select {
	case err := <-s.run(ctx, h):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runNearMiss starts the selector in a goroutine and returns a channel with
// room for its outcome, so the goroutine can deliver it and exit even if
// nobody is waiting any more.
//
// ok: orphansend
func (s *Selector) runNearMiss(ctx context.Context, h TargetHandler) chan error {
	ch := make(chan error, 1)
	go func() {
		nodes, err := s.waitNodes(ctx, h)
		if err != nil {
			ch <- err
			return
		}
		ch <- s.after(ctx, h, nodes...)
	}()
	return ch
}

// DoNearMiss runs the selector and waits for its outcome or for ctx to end.
//
// ok: orphansend
func (s *Selector) DoNearMiss(ctx context.Context, h TargetHandler) error {
	select {
	case err := <-s.runNearMiss(ctx, h):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Peer protocol negotiation

const negotiateTimeout = 30 * time.Second

// Peer is a connection to a remote node.
type Peer struct {
	conn      net.Conn
	inbound   bool
	negotiate func(inbound bool) error
	handlers  func()
}

// Disconnect closes the peer's connection.
//
// ok: orphansend
func (p *Peer) Disconnect() {
	p.conn.Close()
}

// start negotiates the protocol version in the background, bounded by the
// negotiation timeout, and then starts the message handlers.
//
// From: copernet/copernicus#72
// bug: orphansend
func (p *Peer) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, negotiateTimeout)
	defer cancel()

	negotiateErr := make(chan error)
	go func() {
		negotiateErr <- p.negotiate(p.inbound)
	}()

	select {
	case err := <-negotiateErr:
		if err != nil {
			p.Disconnect()
			return err
		}
	case <-ctx.Done():
		p.Disconnect()
		return fmt.Errorf("protocol negotiation: %w", ctx.Err())
	}
	p.handlers()
	return nil
}

// startNearMiss negotiates the protocol version in the background, bounded
// by the negotiation timeout, and then starts the message handlers. The
// negotiation goroutine can always deliver its result.
//
// ok: orphansend
func (p *Peer) startNearMiss(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, negotiateTimeout)
	defer cancel()

	negotiateErr := make(chan error, 1)
	go func() {
		negotiateErr <- p.negotiate(p.inbound)
	}()

	select {
	case err := <-negotiateErr:
		if err != nil {
			p.Disconnect()
			return err
		}
	case <-ctx.Done():
		p.Disconnect()
		return fmt.Errorf("protocol negotiation: %w", ctx.Err())
	}
	p.handlers()
	return nil
}

// DNS proxy upstream exchange

// Msg is a DNS message.
type Msg struct {
	ID      uint16
	Payload []byte
}

type exchangeResult struct {
	resp  *Msg
	rtt   time.Duration
	proto string
	err   error
}

// Proxy forwards queries to an upstream resolver.
type Proxy struct {
	tcpDelay     time.Duration
	exchangeOnce func(ctx context.Context, proto string, q *Msg) (*Msg, time.Duration, error)
}

// Exchange sends the query over UDP and, shortly after, over TCP, and returns
// the first successful answer.
//
// From: DNSCrypt/dnscrypt-proxy#2136
// bug: orphansend
func (p *Proxy) Exchange(ctx context.Context, q *Msg) (*Msg, error) {
	protos := []string{"udp", "tcp"}
	results := make(chan exchangeResult)
	for i, proto := range protos {
		go func() {
			if i > 0 {
				t := time.NewTimer(p.tcpDelay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					results <- exchangeResult{proto: proto, err: ctx.Err()}
					return
				}
			}
			resp, rtt, err := p.exchangeOnce(ctx, proto, q)
			results <- exchangeResult{resp: resp, rtt: rtt, proto: proto, err: err}
		}()
	}

	var errs []error
	for range protos {
		select {
		case r := <-results:
			if r.err == nil {
				return r.resp, nil
			}
			errs = append(errs, fmt.Errorf("%s: %w", r.proto, r.err))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errors.Join(errs...)
}

// ExchangeNearMiss sends the query over UDP and, shortly after, over TCP,
// and returns the first successful answer. The result channel holds one
// entry per protocol.
//
// ok: orphansend
func (p *Proxy) ExchangeNearMiss(ctx context.Context, q *Msg) (*Msg, error) {
	protos := []string{"udp", "tcp"}
	results := make(chan exchangeResult, len(protos))
	for i, proto := range protos {
		go func() {
			if i > 0 {
				t := time.NewTimer(p.tcpDelay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					results <- exchangeResult{proto: proto, err: ctx.Err()}
					return
				}
			}
			resp, rtt, err := p.exchangeOnce(ctx, proto, q)
			results <- exchangeResult{resp: resp, rtt: rtt, proto: proto, err: err}
		}()
	}

	var errs []error
	for range protos {
		select {
		case r := <-results:
			if r.err == nil {
				return r.resp, nil
			}
			errs = append(errs, fmt.Errorf("%s: %w", r.proto, r.err))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errors.Join(errs...)
}

// Host resolver

// IPAddr is a resolved address.
type IPAddr struct {
	IP   net.IP
	Zone string
}

type lookupRet struct {
	addrs []IPAddr
	err   error
}

// Resolver resolves host names through the system resolver.
type Resolver struct {
	getAddrInfo func(name string) ([]IPAddr, error)
}

// lookupIP resolves name on a separate goroutine so that the lookup can be
// abandoned when ctx ends.
//
// From: golang/go#24178
// bug: orphansend
func (r *Resolver) lookupIP(ctx context.Context, name string) ([]IPAddr, error) {
	ch := make(chan lookupRet, 1)
	go func() {
		addrs, err := r.getAddrInfo(name)
		if err != nil {
			ch <- lookupRet{err: &net.DNSError{Err: err.Error(), Name: name}}
		}
		ch <- lookupRet{addrs: addrs}
	}()
	select {
	case res := <-ch:
		return res.addrs, res.err
	case <-ctx.Done():
		return nil, &net.DNSError{Err: ctx.Err().Error(), Name: name, IsTimeout: ctx.Err() == context.DeadlineExceeded}
	}
}

// lookupIPNearMiss resolves name on a separate goroutine so that the lookup
// can be abandoned when ctx ends; the goroutine sends exactly one result.
//
// ok: orphansend
func (r *Resolver) lookupIPNearMiss(ctx context.Context, name string) ([]IPAddr, error) {
	ch := make(chan lookupRet, 1)
	go func() {
		addrs, err := r.getAddrInfo(name)
		if err != nil {
			ch <- lookupRet{err: &net.DNSError{Err: err.Error(), Name: name}}
			return
		}
		ch <- lookupRet{addrs: addrs}
	}()
	select {
	case res := <-ch:
		return res.addrs, res.err
	case <-ctx.Done():
		return nil, &net.DNSError{Err: ctx.Err().Error(), Name: name, IsTimeout: ctx.Err() == context.DeadlineExceeded}
	}
}

// Map-reduce helper

type reduceOutput[V any] struct {
	v   V
	err error
}

// feed sends items on a new channel until they run out or ctx ends.
//
// ok: orphansend
func feed[T any](ctx context.Context, items []T) <-chan T {
	next := make(chan T)
	go func() {
		defer close(next)
		for _, it := range items {
			select {
			case next <- it:
			case <-ctx.Done():
				return
			}
		}
	}()
	return next
}

// mapAll runs workers mappers over next and returns the channel of mapped
// values, closed once every mapper has stopped. A mapper error is sent on
// errCh, which must have room for one error per worker, and cancels ctx.
//
// ok: orphansend
func mapAll[T, U any](ctx context.Context, cancel context.CancelFunc, next <-chan T, workers int, mapper func(context.Context, T) (U, error), errCh chan<- error) <-chan U {
	collector := make(chan U)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				u, err := mapper(ctx, it)
				if err != nil {
					errCh <- err
					cancel()
					return
				}
				select {
				case collector <- u:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(collector)
	}()
	return collector
}

// MapReduce maps items with a pool of workers and reduces the mapped values,
// returning the reducer's result, the first mapper error or the context's
// error.
//
// From: zeromicro/go-zero#1433
// bug: orphansend
func MapReduce[T, U, V any](ctx context.Context, items []T, workers int, mapper func(context.Context, T) (U, error), reducer func(<-chan U) (V, error)) (V, error) {
	var zero V
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	errCh := make(chan error, workers)
	collector := mapAll(ctx, cancel, feed(ctx, items), workers, mapper, errCh)

	output := make(chan reduceOutput[V])
	go func() {
		v, err := reducer(collector)
		output <- reduceOutput[V]{v: v, err: err}
	}()

	select {
	case <-ctx.Done():
		select {
		case err := <-errCh:
			return zero, err
		default:
			return zero, ctx.Err()
		}
	case o := <-output:
		return o.v, o.err
	}
}

// MapReduceNearMiss maps items with a pool of workers and reduces the mapped
// values, returning the reducer's result, the first mapper error or the
// context's error. The reducer's output channel has room for its result.
//
// ok: orphansend
func MapReduceNearMiss[T, U, V any](ctx context.Context, items []T, workers int, mapper func(context.Context, T) (U, error), reducer func(<-chan U) (V, error)) (V, error) {
	var zero V
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	errCh := make(chan error, workers)
	collector := mapAll(ctx, cancel, feed(ctx, items), workers, mapper, errCh)

	output := make(chan reduceOutput[V], 1)
	go func() {
		v, err := reducer(collector)
		output <- reduceOutput[V]{v: v, err: err}
	}()

	select {
	case <-ctx.Done():
		select {
		case err := <-errCh:
			return zero, err
		default:
			return zero, ctx.Err()
		}
	case o := <-output:
		return o.v, o.err
	}
}

// Channel hand-offs whose receivers always take the value

// Checksum computes the checksum of data on a worker goroutine and waits for
// the result; the receive is unconditional.
//
// ok: orphansend
func Checksum(data []byte) uint32 {
	sum := make(chan uint32)
	go func() {
		var h uint32 = 2166136261
		for _, b := range data {
			h ^= uint32(b)
			h *= 16777619
		}
		sum <- h
	}()
	return <-sum
}

// Publish sends ev to the subscriber unless ctx ends first, in which case
// the event is dropped.
//
// ok: orphansend
func Publish(ctx context.Context, sub chan<- string, ev string) bool {
	select {
	case sub <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// FirstMirror asks every mirror for the object and returns the first
// answer; each mirror goroutine has a slot of its own in the result channel.
//
// ok: orphansend
func FirstMirror(ctx context.Context, mirrors []string, fetch func(context.Context, string) ([]byte, error)) ([]byte, error) {
	if len(mirrors) == 0 {
		return nil, errors.New("no mirrors configured")
	}
	type answer struct {
		body []byte
		err  error
	}
	answers := make(chan answer, len(mirrors))
	for _, m := range mirrors {
		go func() {
			b, err := fetch(ctx, m)
			answers <- answer{body: b, err: err}
		}()
	}
	var errs []error
	for range mirrors {
		select {
		case a := <-answers:
			if a.err == nil {
				return a.body, nil
			}
			errs = append(errs, a.err)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, errors.Join(errs...)
}

// RunWithDeadline runs work and waits for it until ctx ends; work signals
// completion by closing done, so it never blocks on an absent receiver.
//
// ok: orphansend
func RunWithDeadline(ctx context.Context, work func()) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		log.Printf("work still running after context ended: %v", ctx.Err())
		return ctx.Err()
	}
}
