package untracked

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// ResponseCache renders pages and writes them to a store in the background.
type ResponseCache struct {
	store  Store
	ttl    time.Duration
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sink   errSink
}

// NewResponseCache builds a cache whose background writes live until Close.
// ok: untrackedgo
func NewResponseCache(parent context.Context, store Store, ttl time.Duration) *ResponseCache {
	ctx, cancel := context.WithCancel(parent)
	return &ResponseCache{store: store, ttl: ttl, ctx: ctx, cancel: cancel}
}

// Close stops background writes, waits for them and reports their errors.
// ok: untrackedgo
func (c *ResponseCache) Close() error {
	c.cancel()
	c.wg.Wait()
	return c.sink.join()
}

// Serve answers from the cache or renders the page and stores it afterwards.
// The background write is bound to the request context, which net/http
// cancels as soon as Serve returns.
// From: golang/go#54927
// bug: untrackedgo
func (c *ResponseCache) Serve(w http.ResponseWriter, r *http.Request, render func(context.Context) ([]byte, error)) {
	key := r.URL.Path
	body, found, err := c.store.Lookup(r.Context(), key)
	if err != nil {
		http.Error(w, "cache unavailable", http.StatusServiceUnavailable)
		return
	}
	if found {
		_, _ = w.Write(body)
		return
	}
	body, err = render(r.Context())
	if err != nil {
		http.Error(w, "render failed", http.StatusBadGateway)
		return
	}
	_, _ = w.Write(body)

	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(r.Context(), c.ttl)
		defer cancel()
		c.sink.add(c.store.Save(ctx, key, body))
	}()
}

// ServeNearMiss binds the background write to the cache's own lifetime.
// ok: untrackedgo
func (c *ResponseCache) ServeNearMiss(w http.ResponseWriter, r *http.Request, render func(context.Context) ([]byte, error)) {
	key := r.URL.Path
	body, found, err := c.store.Lookup(r.Context(), key)
	if err != nil {
		http.Error(w, "cache unavailable", http.StatusServiceUnavailable)
		return
	}
	if found {
		_, _ = w.Write(body)
		return
	}
	body, err = render(r.Context())
	if err != nil {
		http.Error(w, "render failed", http.StatusBadGateway)
		return
	}
	_, _ = w.Write(body)

	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, c.ttl)
		defer cancel()
		c.sink.add(c.store.Save(ctx, key, body))
	}()
}
