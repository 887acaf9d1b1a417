package retry

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"time"
)

// Worker forwards JSON lines to one backend over TCP.
type Worker struct {
	addr    string
	dialer  net.Dialer
	conn    net.Conn
	backoff time.Duration
	maxWait time.Duration
}

// reconnect replaces the worker's connection, retrying until it succeeds.
// From: corelight/json-tcp-lb#9
// bug: retrycancel
func (w *Worker) reconnect(ctx context.Context) error {
	if w.conn != nil {
		if err := w.conn.Close(); err != nil {
			log.Printf("worker %s: close: %v", w.addr, err)
		}
		w.conn = nil
	}
	wait := w.backoff
	for {
		conn, err := w.dialer.DialContext(ctx, "tcp", w.addr)
		if err == nil {
			w.conn = conn
			log.Printf("worker %s: connected", w.addr)
			return nil
		}
		log.Printf("worker %s: dial failed, retrying in %s: %v", w.addr, wait, err)
		time.Sleep(wait)
		wait = min(wait*2, w.maxWait)
	}
}

// reconnectNearMiss lets the worker context interrupt the redial loop.
// ok: retrycancel
func (w *Worker) reconnectNearMiss(ctx context.Context) error {
	if w.conn != nil {
		if err := w.conn.Close(); err != nil {
			log.Printf("worker %s: close: %v", w.addr, err)
		}
		w.conn = nil
	}
	wait := w.backoff
	for {
		conn, err := w.dialer.DialContext(ctx, "tcp", w.addr)
		if err == nil {
			w.conn = conn
			log.Printf("worker %s: connected", w.addr)
			return nil
		}
		log.Printf("worker %s: dial failed, retrying in %s: %v", w.addr, wait, err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, w.maxWait)
	}
}

// Builder rebuilds and restarts an application when sources change.
type Builder struct {
	changes  <-chan string
	build    func(ctx context.Context) error
	run      func(ctx context.Context) error
	cooldown time.Duration
}

// Rebuild loops over change notifications, rebuilding after each one.
// From: markbates/refresh#49
// bug: retrycancel
func (b *Builder) Rebuild(ctx context.Context) error {
	for path := range b.changes {
		log.Printf("refresh: %s changed, rebuilding", path)
		for {
			err := b.build(ctx)
			if err == nil {
				break
			}
			log.Printf("refresh: build failed: %v", err)
			t := time.NewTimer(b.cooldown)
			<-t.C
		}
		if err := b.run(ctx); err != nil {
			log.Printf("refresh: run: %v", err)
		}
	}
	return nil
}

// RebuildNearMiss stops waiting for changes and builds when ctx ends.
// ok: retrycancel
func (b *Builder) RebuildNearMiss(ctx context.Context) error {
	for {
		var path string
		select {
		case <-ctx.Done():
			return ctx.Err()
		case p, ok := <-b.changes:
			if !ok {
				return nil
			}
			path = p
		}
		log.Printf("refresh: %s changed, rebuilding", path)
		for {
			err := b.build(ctx)
			if err == nil {
				break
			}
			log.Printf("refresh: build failed: %v", err)
			t := time.NewTimer(b.cooldown)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if err := b.run(ctx); err != nil {
			log.Printf("refresh: run: %v", err)
		}
	}
}

// Message is one payload returned by a long poll.
type Message struct {
	ID   string
	Body []byte
}

type longPoller interface {
	Poll(ctx context.Context) ([]Message, error)
}

// LongPollReceiver delivers messages obtained by repeated long polls.
type LongPollReceiver struct {
	client  longPoller
	deliver func(Message)
	errWait time.Duration
}

// Receive polls until the transport is closed.
// From: cloudevents/sdk-go#278
// bug: retrycancel
func (r *LongPollReceiver) Receive(ctx context.Context) error {
	for {
		msgs, err := r.client.Poll(ctx)
		if err != nil {
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				continue
			}
			log.Printf("long poll request returned error: %v", err)
			continue
		}
		for _, m := range msgs {
			r.deliver(m)
		}
	}
}

// ReceiveNearMiss exits as soon as the receiver context is cancelled.
// ok: retrycancel
func (r *LongPollReceiver) ReceiveNearMiss(ctx context.Context) error {
	for {
		msgs, err := r.client.Poll(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var netErr net.Error
			if errors.As(err, &netErr) && netErr.Timeout() {
				continue
			}
			log.Printf("long poll request returned error: %v", err)
			continue
		}
		for _, m := range msgs {
			r.deliver(m)
		}
	}
}

// NodeInfo is a node known to the discovery cache.
type NodeInfo struct {
	ID      string
	Address string
}

type nodeCache interface {
	Paginate(ctx context.Context, offset, limit int) ([]NodeInfo, bool, error)
	UpdateUptime(ctx context.Context, id string, up bool) error
}

// Discovery refreshes liveness information for known nodes.
type Discovery struct {
	cache nodeCache
	ping  func(ctx context.Context, addr string) error
	page  int
}

// Refresh pings every cached node and records whether it answered.
// From: storj/storj#1248
// bug: retrycancel
func (d *Discovery) Refresh(ctx context.Context) error {
	offset := 0
	for {
		nodes, more, err := d.cache.Paginate(ctx, offset, d.page)
		if err != nil {
			return fmt.Errorf("paginate: %w", err)
		}
		for _, n := range nodes {
			if err := d.ping(ctx, n.Address); err != nil {
				if err := d.cache.UpdateUptime(ctx, n.ID, false); err != nil {
					log.Printf("discovery: update uptime %s: %v", n.ID, err)
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := d.cache.UpdateUptime(ctx, n.ID, true); err != nil {
				log.Printf("discovery: update uptime %s: %v", n.ID, err)
			}
		}
		if !more {
			return nil
		}
		offset += len(nodes)
	}
}

// RefreshNearMiss checks ctx before every node, failed or not.
// ok: retrycancel
func (d *Discovery) RefreshNearMiss(ctx context.Context) error {
	offset := 0
	for {
		nodes, more, err := d.cache.Paginate(ctx, offset, d.page)
		if err != nil {
			return fmt.Errorf("paginate: %w", err)
		}
		for _, n := range nodes {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := d.ping(ctx, n.Address); err != nil {
				if err := d.cache.UpdateUptime(ctx, n.ID, false); err != nil {
					log.Printf("discovery: update uptime %s: %v", n.ID, err)
				}
				continue
			}
			if err := d.cache.UpdateUptime(ctx, n.ID, true); err != nil {
				log.Printf("discovery: update uptime %s: %v", n.ID, err)
			}
		}
		if !more {
			return nil
		}
		offset += len(nodes)
	}
}

// Puller keeps a folder in sync, retrying failed pulls after a delay.
type Puller struct {
	folder     string
	pull       func(ctx context.Context) (changed int, err error)
	retryDelay time.Duration
}

// Serve pulls repeatedly until the folder context ends.
// From: syncthing/syncthing#7492
// bug: retrycancel
func (p *Puller) Serve(ctx context.Context) error {
	delay := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			log.Printf("folder %s: stopping puller", p.folder)
			break
		case <-time.After(delay):
		}
		changed, err := p.pull(ctx)
		if err != nil {
			log.Printf("folder %s: pull failed, retrying in %s: %v", p.folder, p.retryDelay, err)
			delay = p.retryDelay
			continue
		}
		log.Printf("folder %s: pulled %d changes", p.folder, changed)
		delay = p.retryDelay * 10
	}
}

// ServeNearMiss returns from the loop on cancellation.
// ok: retrycancel
func (p *Puller) ServeNearMiss(ctx context.Context) error {
	delay := time.Duration(0)
	for {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			log.Printf("folder %s: stopping puller", p.folder)
			return ctx.Err()
		case <-t.C:
		}
		changed, err := p.pull(ctx)
		if err != nil {
			log.Printf("folder %s: pull failed, retrying in %s: %v", p.folder, p.retryDelay, err)
			delay = p.retryDelay
			continue
		}
		log.Printf("folder %s: pulled %d changes", p.folder, changed)
		delay = p.retryDelay * 10
	}
}

type pageIterator interface {
	HasNext() bool
	Fetch() (string, error)
}

// APICollector fetches every page named by an iterator.
type APICollector struct {
	it       pageIterator
	get      func(ctx context.Context, url string) error
	attempts int
}

// Execute collects each page, retrying a page a few times before failing.
// From: apache/devlake#1803
// bug: retrycancel
func (c *APICollector) Execute(ctx context.Context) error {
	for c.it.HasNext() {
		select {
		case <-ctx.Done():
			break
		default:
		}
		url, err := c.it.Fetch()
		if err != nil {
			return fmt.Errorf("iterator: %w", err)
		}
		var lastErr error
		for i := 0; i < c.attempts; i++ {
			if lastErr = c.get(ctx, url); lastErr == nil {
				break
			}
			log.Printf("collector: %s attempt %d: %v", url, i+1, lastErr)
		}
		if lastErr != nil {
			return fmt.Errorf("collect %s: %w", url, lastErr)
		}
	}
	return nil
}

// ExecuteNearMiss leaves the collection loop when ctx is done.
// ok: retrycancel
func (c *APICollector) ExecuteNearMiss(ctx context.Context) error {
	for c.it.HasNext() {
		if err := ctx.Err(); err != nil {
			return err
		}
		url, err := c.it.Fetch()
		if err != nil {
			return fmt.Errorf("iterator: %w", err)
		}
		var lastErr error
		for i := 0; i < c.attempts; i++ {
			if lastErr = c.get(ctx, url); lastErr == nil {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("collect %s: %w", url, ctx.Err())
			}
			log.Printf("collector: %s attempt %d: %v", url, i+1, lastErr)
		}
		if lastErr != nil {
			return fmt.Errorf("collect %s: %w", url, lastErr)
		}
	}
	return nil
}

// BlockFilter tracks new block hashes for a polling RPC filter.
type BlockFilter struct {
	latest   func(ctx context.Context) (uint64, []byte, error)
	deliver  func(hash []byte)
	interval time.Duration
}

// Poll checks for new blocks at a fixed interval.
// From: NilFoundation/nil#319
// bug: retrycancel
func (f *BlockFilter) Poll(ctx context.Context) error {
	var seen uint64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		num, hash, err := f.latest(ctx)
		switch {
		case err != nil:
			log.Printf("filters: processBlockHash failed: %v", err)
		case num > seen:
			seen = num
			f.deliver(hash)
		}
		time.Sleep(f.interval)
	}
}

// PollNearMiss waits on a ticker alongside ctx.
// ok: retrycancel
func (f *BlockFilter) PollNearMiss(ctx context.Context) error {
	var seen uint64
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		num, hash, err := f.latest(ctx)
		switch {
		case err != nil:
			log.Printf("filters: processBlockHash failed: %v", err)
		case num > seen:
			seen = num
			f.deliver(hash)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
