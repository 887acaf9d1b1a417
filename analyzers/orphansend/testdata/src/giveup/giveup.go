// Package giveup holds sends on a channel of a value that also carries its
// reader's end: a channel closed when the reader gives up, or a context
// made part of the value with the channel.
package giveup

import (
	"context"
	"sync"
)

type subscriber struct {
	out      chan any
	canceled chan struct{}
}

type Bus struct {
	mu   sync.Mutex
	subs map[string]*subscriber
}

func (b *Bus) Subscribe(ctx context.Context, id string, n int) <-chan any {
	s := &subscriber{out: make(chan any, n), canceled: make(chan struct{})}
	b.mu.Lock()
	b.subs[id] = s
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
		close(s.canceled)
	})
	return s.out
}

func (b *Bus) snapshot() []*subscriber {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*subscriber
	for _, s := range b.subs {
		out = append(out, s)
	}
	return out
}

func (b *Bus) Publish(msg any) {
	for _, s := range b.snapshot() {
		s.out <- msg // want `this send on s.out waits for a reader with no way out, though s.canceled is closed when that reader gives up \(in a function literal\)`
	}
}

// Near miss: the send gives up with the subscriber.
func (b *Bus) PublishSelect(msg any) {
	for _, s := range b.snapshot() {
		select {
		case s.out <- msg:
		case <-s.canceled:
		}
	}
}

// Near miss: a send that first asks whether the subscriber is gone knows of
// its end and chose how to treat it.
func (b *Bus) PublishChecked(msg any) {
	for _, s := range b.snapshot() {
		select {
		case <-s.canceled:
			continue
		default:
		}
		s.out <- msg
	}
}

// A sender whose reader closes done on its way out: the close is the
// reader's completion (it ends when out is closed), not a give-up.
type client struct {
	requests chan []byte
	done     chan struct{}
	write    func([]byte)
}

func newClient(write func([]byte)) *client {
	c := &client{requests: make(chan []byte, 16), done: make(chan struct{}), write: write}
	go c.loop()
	return c
}

func (c *client) loop() {
	defer close(c.done)
	for msg := range c.requests {
		c.write(msg)
	}
}

func (c *client) Send(msg []byte) { c.requests <- msg }

func (c *client) Close() {
	close(c.requests)
	<-c.done
}

// A delivery bounded by the context the subscription was made with.
type sub struct {
	ctx    context.Context
	output chan string
}

type hub struct {
	wg   sync.WaitGroup
	subs []*sub
}

func (h *hub) Subscribe(ctx context.Context) <-chan string {
	s := &sub{ctx: ctx, output: make(chan string)}
	h.subs = append(h.subs, s)
	return s.output
}

func (h *hub) Publish(msg string) {
	for _, s := range h.subs {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			s.output <- msg // want `though s carries the context its reader ends with \(s.ctx\)`
		}()
	}
}

// Near miss: the delivery gives up when the subscription's context ends.
func (h *hub) PublishBounded(msg string) {
	for _, s := range h.subs {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			select {
			case s.output <- msg:
			case <-s.ctx.Done():
			}
		}()
	}
}

// Near miss: a value made here with a buffer of one, sent on once.
type task struct {
	ctx  context.Context
	done chan error
}

func start(ctx context.Context, run func(context.Context) error) *task {
	t := &task{ctx: ctx, done: make(chan error, 1)}
	go func() {
		t.done <- run(ctx)
	}()
	return t
}

// Near miss: a semaphore (sent on to take a slot, received from to give it
// back) waits for a release, not for a reader.
type limiter struct {
	ctx  context.Context
	slot chan struct{}
}

func newLimiter(ctx context.Context, n int) *limiter {
	return &limiter{ctx: ctx, slot: make(chan struct{}, n)}
}

func (l *limiter) do(f func()) {
	l.slot <- struct{}{}
	defer func() { <-l.slot }()
	f()
}

// Near miss: the package's reader of ready waits on another end (its own
// context), not on closed, which only ends the conn after the dial: closed
// is not that reader's way of giving up.
type pending struct {
	ready  chan error
	closed chan struct{}
}

func dial(ctx context.Context, p *pending) error {
	select {
	case err := <-p.ready:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pending) finish(err error) { p.ready <- err }

func (p *pending) Close() error {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	return nil
}

// A reply delivered to a waiter that made the callback with its own
// context and gives up when that context ends.
type callback struct {
	ctx      context.Context
	response chan []byte
}

type rpcClient struct {
	mu        sync.Mutex
	callbacks map[string]*callback
}

func (c *rpcClient) call(ctx context.Context, id string) ([]byte, error) {
	cb := &callback{ctx: ctx, response: make(chan []byte)}
	c.mu.Lock()
	c.callbacks[id] = cb
	c.mu.Unlock()
	select {
	case r := <-cb.response:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *rpcClient) deliver(id string, reply []byte) {
	c.mu.Lock()
	cb := c.callbacks[id]
	delete(c.callbacks, id)
	c.mu.Unlock()
	if cb != nil {
		cb.response <- reply // want `this send on cb.response waits for a reader with no way out, though cb carries the context its reader ends with \(cb.ctx\)`
	}
}

// Near miss: the reader of updates closes out in a deferred literal on its
// way out: its completion, not another reader giving up.
type collector struct {
	updates chan int
	out     chan []int
}

func (c *collector) loop(ctx context.Context) {
	defer func() { close(c.out) }()
	for {
		select {
		case u := <-c.updates:
			c.out <- []int{u}
		case <-ctx.Done():
			return
		}
	}
}

func (c *collector) Collect(n int) { c.updates <- n }

// Near miss: a result channel nothing in the package ever reads, nor hands
// out: no reader to give up.
type syncer struct {
	result chan error
	stop   chan struct{}
}

func (s *syncer) halt() { close(s.stop) }

func (s *syncer) run() { s.result <- nil }

// Near miss: the reader made the value, closed channel and all, but waits
// on its own context, not on closed.
type dialing struct {
	ready  chan error
	closed chan struct{}
}

func (d *dialing) finish(err error) { d.ready <- err }

func (d *dialing) Close() { close(d.closed) }

func dialWait(ctx context.Context, register func(*dialing)) error {
	d := &dialing{ready: make(chan error), closed: make(chan struct{})}
	register(d)
	select {
	case err := <-d.ready:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
