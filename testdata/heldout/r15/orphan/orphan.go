// Package orphan holds goroutines whose result send blocks forever because
// the receiver has already given up.
package orphan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Endpoint health checks.

// Dialer opens connections for health checks.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Checker runs connectivity checks.
type Checker struct {
	dialer Dialer
}

// CanCreateConnection reports whether address accepts a connection within
// timeout. The probe goroutine reports on an unbuffered channel; when the
// timeout wins, nobody receives its answer and it blocks for good.
// From: TwiN/gatus#961
// bug: orphansend
func (c *Checker) CanCreateConnection(ctx context.Context, network, address string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan bool)
	go func() {
		conn, err := c.dialer.DialContext(ctx, network, address)
		if err != nil {
			ch <- false
			return
		}
		_ = conn.Close()
		ch <- true
	}()
	select {
	case ok := <-ch:
		return ok
	case <-ctx.Done():
		return false
	}
}

// CanCreateConnectionNearMiss gives the probe's channel room for its answer.
// ok: orphansend
func (c *Checker) CanCreateConnectionNearMiss(ctx context.Context, network, address string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan bool, 1)
	go func() {
		conn, err := c.dialer.DialContext(ctx, network, address)
		if err != nil {
			ch <- false
			return
		}
		_ = conn.Close()
		ch <- true
	}()
	select {
	case ok := <-ch:
		return ok
	case <-ctx.Done():
		return false
	}
}

// ---------------------------------------------------------------------------
// Manager shutdown with a deadline.

// ErrStopTimeout is returned when Stop overruns.
var ErrStopTimeout = errors.New("manager did not stop in time")

// Manager owns scrape loops.
type Manager struct {
	stop func()
}

// StopWithTimeout stops the manager but gives up after timeout. The stopping
// goroutine signals on an unbuffered channel, so after a timeout it is stuck
// on that send once Stop finally returns.
// From: prometheus/prometheus#8274
// bug: orphansend
func (m *Manager) StopWithTimeout(timeout time.Duration) error {
	done := make(chan struct{})
	go func() {
		m.stop()
		done <- struct{}{}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return ErrStopTimeout
	}
}

// StopWithTimeoutNearMiss buffers the done signal.
// ok: orphansend
func (m *Manager) StopWithTimeoutNearMiss(timeout time.Duration) error {
	done := make(chan struct{}, 1)
	go func() {
		m.stop()
		done <- struct{}{}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return ErrStopTimeout
	}
}

// ---------------------------------------------------------------------------
// Line-protocol probe over a raw socket.

// Command describes a net dial probe.
type Command struct {
	Network string
	Address string
	Payload string
	Timeout time.Duration
}

type dialResult struct {
	line string
	err  error
}

// probeOnce dials, writes the payload and reads one line, bounded by ctx.
// ok: orphansend
func probeOnce(ctx context.Context, d Dialer, cmd Command) (string, error) {
	conn, err := d.DialContext(ctx, cmd.Network, cmd.Address)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return "", err
		}
	}
	if _, err := conn.Write([]byte(cmd.Payload)); err != nil {
		return "", err
	}
	return bufio.NewReader(conn).ReadString('\n')
}

// NetDialWithTimeout runs the probe in a goroutine and waits for it or the
// timeout. The result channel is unbuffered, so a probe that finishes after
// the timeout waits forever to hand over its line.
// From: newrelic/nri-flex#339
// bug: orphansend
func NetDialWithTimeout(ctx context.Context, d Dialer, cmd Command) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cmd.Timeout)
	defer cancel()
	c := make(chan dialResult)
	go func() {
		line, err := probeOnce(ctx, d, cmd)
		c <- dialResult{line, err}
	}()
	select {
	case r := <-c:
		return r.line, r.err
	case <-ctx.Done():
		return "", fmt.Errorf("dial %s: %w", cmd.Address, ctx.Err())
	}
}

// NetDialWithTimeoutNearMiss lets the probe give up on the send once the
// context is done.
// ok: orphansend
func NetDialWithTimeoutNearMiss(ctx context.Context, d Dialer, cmd Command) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cmd.Timeout)
	defer cancel()
	c := make(chan dialResult)
	go func() {
		line, err := probeOnce(ctx, d, cmd)
		select {
		case c <- dialResult{line, err}:
		case <-ctx.Done():
		}
	}()
	select {
	case r := <-c:
		return r.line, r.err
	case <-ctx.Done():
		return "", fmt.Errorf("dial %s: %w", cmd.Address, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Meta-transaction receipt listener.

// Receipt is a transaction receipt.
type Receipt struct {
	MetaTxnID string
	Status    int
}

type subscription struct {
	in chan Receipt
	ch <-chan Receipt
}

// ReceiptListener fans receipts out to subscribers.
type ReceiptListener struct {
	mu   sync.Mutex
	subs map[*subscription]struct{}
}

// subscribe registers a subscriber whose channel is fed through an unbounded
// buffer. The buffering goroutine ends once in is closed and everything queued
// has been read from ch.
// ok: orphansend
func (l *ReceiptListener) subscribe() *subscription {
	in := make(chan Receipt, 16)
	out := make(chan Receipt)
	sub := &subscription{in: in, ch: out}
	l.mu.Lock()
	if l.subs == nil {
		l.subs = make(map[*subscription]struct{})
	}
	l.subs[sub] = struct{}{}
	l.mu.Unlock()

	go func() {
		defer close(out)
		var queue []Receipt
		src := (<-chan Receipt)(in)
		for src != nil || len(queue) > 0 {
			var send chan<- Receipt
			var head Receipt
			if len(queue) > 0 {
				send, head = out, queue[0]
			}
			select {
			case r, ok := <-src:
				if !ok {
					src = nil
					continue
				}
				queue = append(queue, r)
			case send <- head:
				queue = queue[1:]
			}
		}
	}()
	return sub
}

// unsubscribe removes sub and closes its input.
// ok: orphansend
func (l *ReceiptListener) unsubscribe(sub *subscription) {
	l.mu.Lock()
	delete(l.subs, sub)
	l.mu.Unlock()
	close(sub.in)
}

// Publish delivers r to every subscriber.
// ok: orphansend
func (l *ReceiptListener) Publish(r Receipt) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for sub := range l.subs {
		sub.in <- r
	}
}

// WaitForMetaTxn waits for the receipt of id. When the context ends it
// unsubscribes but leaves queued receipts unread, so the buffering goroutine
// blocks forever trying to hand them over.
// From: 0xsequence/go-sequence#59
// bug: orphansend
func (l *ReceiptListener) WaitForMetaTxn(ctx context.Context, id string) (*Receipt, error) {
	sub := l.subscribe()
	defer l.unsubscribe(sub)
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for meta txn %s: %w", id, ctx.Err())
		case r, ok := <-sub.ch:
			if !ok {
				return nil, errors.New("receipt subscription closed")
			}
			if r.MetaTxnID == id {
				return &r, nil
			}
		}
	}
}

// WaitForMetaTxnNearMiss drains the subscription after unsubscribing.
// ok: orphansend
func (l *ReceiptListener) WaitForMetaTxnNearMiss(ctx context.Context, id string) (*Receipt, error) {
	sub := l.subscribe()
	defer func() {
		l.unsubscribe(sub)
		for range sub.ch {
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for meta txn %s: %w", id, ctx.Err())
		case r, ok := <-sub.ch:
			if !ok {
				return nil, errors.New("receipt subscription closed")
			}
			if r.MetaTxnID == id {
				return &r, nil
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Package update check.

// Pkg is an installed package.
type Pkg struct {
	Name    string
	Version string
}

type checkResult struct {
	needs bool
	err   error
}

// NeedsUpdate checks every package in parallel and returns at the first one
// that needs an update. The remaining checkers block forever on the
// unbuffered results channel.
// From: Jguer/yay#1463
// bug: orphansend
func NeedsUpdate(ctx context.Context, pkgs []Pkg, check func(context.Context, Pkg) (bool, error)) (bool, error) {
	results := make(chan checkResult)
	for _, p := range pkgs {
		go func() {
			needs, err := check(ctx, p)
			results <- checkResult{needs, err}
		}()
	}
	for range pkgs {
		r := <-results
		if r.err != nil {
			return false, r.err
		}
		if r.needs {
			return true, nil
		}
	}
	return false, nil
}

// NeedsUpdateNearMiss buffers one slot per checker and cancels the rest.
// ok: orphansend
func NeedsUpdateNearMiss(ctx context.Context, pkgs []Pkg, check func(context.Context, Pkg) (bool, error)) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan checkResult, len(pkgs))
	for _, p := range pkgs {
		go func() {
			needs, err := check(ctx, p)
			results <- checkResult{needs, err}
		}()
	}
	for range pkgs {
		r := <-results
		if r.err != nil {
			return false, r.err
		}
		if r.needs {
			return true, nil
		}
	}
	return false, nil
}

// ---------------------------------------------------------------------------
// Blocking dial behind a context.

// Conn is an open network file set.
type Conn interface {
	Close() error
}

// FileDialer dials by opening control files, which blocks.
type FileDialer struct {
	dialBlocking func(ctx context.Context, network, addr string) (Conn, error)
}

type dialRes struct {
	c   Conn
	err error
}

// Dial runs the blocking dial in a goroutine so it can return when ctx ends.
// The goroutine's send has no receiver after that and it never exits.
// From: golang/go#77861
// bug: orphansend
func (d *FileDialer) Dial(ctx context.Context, network, addr string) (Conn, error) {
	resc := make(chan dialRes)
	go func() {
		c, err := d.dialBlocking(ctx, network, addr)
		resc <- dialRes{c, err}
	}()
	select {
	case r := <-resc:
		return r.c, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// DialNearMiss lets the goroutine drop (and close) its result once the
// caller has gone.
// ok: orphansend
func (d *FileDialer) DialNearMiss(ctx context.Context, network, addr string) (Conn, error) {
	resc := make(chan dialRes)
	go func() {
		c, err := d.dialBlocking(ctx, network, addr)
		select {
		case resc <- dialRes{c, err}:
		case <-ctx.Done():
			if c != nil {
				_ = c.Close()
			}
		}
	}()
	select {
	case r := <-resc:
		return r.c, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// Compute runs fn in a goroutine and always waits for it: the unbuffered send
// always has its receiver.
// ok: orphansend
func Compute[T any](fn func() T) T {
	ch := make(chan T)
	go func() { ch <- fn() }()
	return <-ch
}

// Produce streams values to out until ctx ends; every send is paired with
// ctx.Done, so a consumer that leaves never strands it.
// ok: orphansend
func Produce(ctx context.Context, out chan<- int, next func() (int, bool)) error {
	defer close(out)
	for {
		v, ok := next()
		if !ok {
			return nil
		}
		select {
		case out <- v:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// FirstAnswer asks every mirror and takes the first answer; the channel has a
// slot for every mirror so the losers never block.
// ok: orphansend
func FirstAnswer(ctx context.Context, mirrors []string, ask func(context.Context, string) (string, error)) (string, error) {
	if len(mirrors) == 0 {
		return "", errors.New("no mirrors")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		v   string
		err error
	}
	answers := make(chan answer, len(mirrors))
	for _, m := range mirrors {
		go func() {
			v, err := ask(ctx, m)
			answers <- answer{v, err}
		}()
	}
	var errs []error
	for range mirrors {
		a := <-answers
		if a.err == nil {
			return a.v, nil
		}
		errs = append(errs, a.err)
	}
	return "", errors.Join(errs...)
}
