package a

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

type Cache struct {
	once sync.Once
	sf   singleflight.Group
	s    *Store
}

// Loaded once for every caller: one caller's cancellation must not fail
// the others.
func (c *Cache) Get(ctx context.Context) {
	c.once.Do(func() {
		_ = c.s.Save(context.Background(), "warm")
	})
}

func (c *Cache) Fetch(ctx context.Context, key string) (interface{}, error) {
	v, err, _ := c.sf.Do(key, func() (interface{}, error) {
		return nil, c.s.Save(context.Background(), key)
	})
	return v, err
}

// Runs after ctx ended.
func OnCancel(ctx context.Context, s *Store) {
	context.AfterFunc(ctx, func() {
		_ = s.Save(context.Background(), "canceled")
	})
}

// Runs later, detached.
func Later(ctx context.Context, s *Store) {
	time.AfterFunc(time.Second, func() {
		_ = s.Save(context.Background(), "later")
	})
}

type Service struct {
	ctx    context.Context
	cancel context.CancelFunc
	s      *Store
}

// The receiver's context is being torn down.
func (sv *Service) Close() error {
	sv.cancel()
	return sv.s.Save(context.Background(), "final")
}

// The service owns its context (it holds the cancel func): that context is
// its lifetime, not a caller's (the rt/scope Wait shape).
func (sv *Service) Refresh() error {
	return sv.s.Save(context.Background(), "refresh")
}

// sync.Once inside a handler still uses the request when it is the caller's
// own work (not a literal run for many callers).
func (c *Cache) Put(ctx context.Context, v string) error {
	c.once.Do(func() {})
	return c.s.Save(context.Background(), v) // want `context.Background\(\) in Put cuts off ctx`
}

// A worker handed its context from outside.
type Poller struct {
	ctx context.Context
	s   *Store
}

// Stopping: the worker's context is the one being torn down.
func (p *Poller) Stop() error { return p.s.Save(context.Background(), "stopped") }

// Polling ignores the worker's context.
func (p *Poller) Poll() error {
	return p.s.Save(context.Background(), "poll") // want `context.Background\(\) in Poll cuts off p.ctx`
}
