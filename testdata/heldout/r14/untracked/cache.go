package untracked

import (
	"sync"
	"time"
)

// Fetcher loads a value for key.
type Fetcher func(key string) (any, error)

// AsyncCache keeps values fresh by refreshing them in the background.
type AsyncCache struct {
	mu      sync.RWMutex
	data    map[string]any
	fetch   Fetcher
	ticker  *time.Ticker
	stop    chan struct{}
	refresh sync.WaitGroup
}

// refreshAll reloads every cached key.
//
// ok: untrackedgo
func (c *AsyncCache) refreshAll() {
	c.mu.RLock()
	keys := make([]string, 0, len(c.data))
	for k := range c.data {
		keys = append(keys, k)
	}
	c.mu.RUnlock()
	for _, k := range keys {
		if v, err := c.fetch(k); err == nil {
			c.mu.Lock()
			c.data[k] = v
			c.mu.Unlock()
		}
	}
}

// NewAsyncCache starts a cache that refreshes every interval until Close.
//
// From: bytedance/gopkg#5
// bug: untrackedgo
func NewAsyncCache(fetch Fetcher, interval time.Duration) *AsyncCache {
	c := &AsyncCache{data: map[string]any{}, fetch: fetch, ticker: time.NewTicker(interval)}
	go func() {
		for range c.ticker.C {
			c.refreshAll()
		}
	}()
	return c
}

// Close stops the refresh ticker.
//
// ok: untrackedgo
func (c *AsyncCache) Close() {
	c.ticker.Stop()
}

// NewAsyncCacheNearMiss exits the refresher on a stop channel that
// CloseNearMiss closes, and CloseNearMiss waits for it.
//
// ok: untrackedgo
func NewAsyncCacheNearMiss(fetch Fetcher, interval time.Duration) *AsyncCache {
	c := &AsyncCache{data: map[string]any{}, fetch: fetch, ticker: time.NewTicker(interval), stop: make(chan struct{})}
	c.refresh.Add(1)
	go func() {
		defer c.refresh.Done()
		for {
			select {
			case <-c.stop:
				return
			case <-c.ticker.C:
				c.refreshAll()
			}
		}
	}()
	return c
}

// CloseNearMiss stops the refresher and waits for it.
//
// ok: untrackedgo
func (c *AsyncCache) CloseNearMiss() {
	c.ticker.Stop()
	close(c.stop)
	c.refresh.Wait()
}
