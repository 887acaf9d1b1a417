package registry

import (
	"context"
	"sync"
	"time"
)

type response struct {
	id   uint64
	body []byte
}

type conn struct {
	mu      sync.Mutex
	seq     uint64
	pending map[uint64]chan *response
	send    func(ctx context.Context, id uint64, req []byte) error
}

func (c *conn) register(id uint64, ch chan *response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[id] = ch
}

func (c *conn) take(id uint64) (chan *response, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	return ch, ok
}

// deliver runs in the connection's reader for every reply.
func (c *conn) deliver(r *response) {
	if ch, ok := c.take(r.id); ok {
		ch <- r
	}
}

// call gives up on ctx and leaves its channel registered.
func (c *conn) call(ctx context.Context, req []byte) (*response, error) {
	c.seq++
	id := c.seq
	done := make(chan *response) // want `done is unbuffered and registered in pending, and call stops waiting on it at case <-ctx.Done\(\) and returns without taking it out: whoever later finds it there and delivers the reply blocks on the send forever`
	c.register(id, done)
	if err := c.send(ctx, id, req); err != nil {
		c.take(id)
		return nil, err
	}
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callForgets takes its channel out when it gives up.
func (c *conn) callForgets(ctx context.Context, req []byte) (*response, error) {
	c.seq++
	id := c.seq
	done := make(chan *response)
	c.register(id, done)
	if err := c.send(ctx, id, req); err != nil {
		c.take(id)
		return nil, err
	}
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		c.take(id)
		return nil, ctx.Err()
	}
}

// callBuffered has room for the one late reply.
func (c *conn) callBuffered(ctx context.Context, req []byte) (*response, error) {
	c.seq++
	id := c.seq
	done := make(chan *response, 1)
	c.register(id, done)
	if err := c.send(ctx, id, req); err != nil {
		c.take(id)
		return nil, err
	}
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callTimeout stores the channel itself and gives up on a timer.
func (c *conn) callTimeout(req []byte, d time.Duration) (*response, bool) {
	c.mu.Lock()
	c.seq++
	id := c.seq
	done := make(chan *response) // want `done is unbuffered and registered in pending, and callTimeout stops waiting on it at case <-time.After\(d\)`
	c.pending[id] = done
	c.mu.Unlock()
	select {
	case r := <-done:
		return r, true
	case <-time.After(d):
		return nil, false
	}
}

// callTimeoutForgets deletes its entry under the lock when it gives up.
func (c *conn) callTimeoutForgets(req []byte, d time.Duration) (*response, bool) {
	c.mu.Lock()
	c.seq++
	id := c.seq
	done := make(chan *response)
	c.pending[id] = done
	c.mu.Unlock()
	select {
	case r := <-done:
		return r, true
	case <-time.After(d):
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, false
	}
}

// wait waits for the reply without giving up: nothing is stranded.
func (c *conn) wait(req []byte) *response {
	c.seq++
	done := make(chan *response)
	c.register(c.seq, done)
	return <-done
}
