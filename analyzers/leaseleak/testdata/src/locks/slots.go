package locks

import (
	"context"
	"errors"
	"io"
	"sync"
)

// uploader bounds its uploads with a buffered channel used as a
// semaphore, taken and given back by two helpers.
type uploader struct {
	sem  chan struct{}
	open func(ctx context.Context, key string) (io.WriteCloser, error)
}

func (u *uploader) acquire(ctx context.Context) error {
	select {
	case u.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (u *uploader) release() { <-u.sem }

func (u *uploader) upload(ctx context.Context, key string, data []byte) (err error) {
	if err := u.acquire(ctx); err != nil { // want `uploader`
		return err
	}
	w, err := u.open(ctx, key)
	if err != nil {
		return err
	}
	defer u.release()
	defer func() { err = errors.Join(err, w.Close()) }()
	_, err = w.Write(data)
	return err
}

// Near miss: the slot is given back on every path after it was taken.
func (u *uploader) uploadDeferred(ctx context.Context, key string, data []byte) (err error) {
	if err := u.acquire(ctx); err != nil {
		return err
	}
	defer u.release()
	w, err := u.open(ctx, key)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, w.Close()) }()
	_, err = w.Write(data)
	return err
}

// Near miss: a function that only takes the slot hands it to its caller.
func (u *uploader) reserve(ctx context.Context) error {
	return u.acquire(ctx)
}

// memo guards its map with a mutex behind lock/unlock helpers.
type memo struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *memo) lock()   { c.mu.Lock() }
func (c *memo) unlock() { c.mu.Unlock() }

func (c *memo) update(key string, fetch func(string) (string, error)) error {
	c.lock() // want `memo`
	v, err := fetch(key)
	if err != nil {
		return err
	}
	c.m[key] = v
	c.unlock()
	return nil
}

// Near miss: unlocked on the failure path too.
func (c *memo) updateBoth(key string, fetch func(string) (string, error)) error {
	c.lock()
	v, err := fetch(key)
	if err != nil {
		c.unlock()
		return err
	}
	c.m[key] = v
	c.unlock()
	return nil
}

// pool hands out tokens from a channel its constructor fills: a receive
// takes one and a send gives it back, so sending is not an acquisition.
type pool struct{ tokens chan struct{} }

func newPool(n int) *pool {
	p := &pool{tokens: make(chan struct{}, n)}
	for range n {
		p.tokens <- struct{}{}
	}
	return p
}

func (p *pool) put() { p.tokens <- struct{}{} }
func (p *pool) get() { <-p.tokens }

func (p *pool) refill(fail bool) error {
	p.put()
	if fail {
		return errors.New("refill")
	}
	p.get()
	return nil
}
