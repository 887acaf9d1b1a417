package untracked

import (
	"sync"
	"time"
)

type entry[V any] struct {
	val     V
	expires time.Time
}

// Cache is a TTL cache swept by a background janitor.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	ttl   time.Duration
	items map[K]entry[V]
}

// sweep drops expired entries.
// ok: untrackedgo
func (c *Cache[K, V]) sweep(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.items {
		if now.After(e.expires) {
			delete(c.items, k)
		}
	}
}

// Set stores v under k.
// ok: untrackedgo
func (c *Cache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[k] = entry[V]{val: v, expires: time.Now().Add(c.ttl)}
}

// NewCache returns a cache whose janitor goroutine sweeps expired entries
// every interval. The janitor ranges over the ticker forever and nothing can
// stop or wait for it, so every cache ever built keeps a goroutine, and the map
// it references, alive for the life of the process.
// From: jellydator/ttlcache#24
// bug: untrackedgo
func NewCache[K comparable, V any](ttl, interval time.Duration) *Cache[K, V] {
	c := &Cache[K, V]{ttl: ttl, items: make(map[K]entry[V])}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for now := range t.C {
			c.sweep(now)
		}
	}()
	return c
}

// ExpiringMap is a TTL cache whose janitor is stopped and joined by Close.
type ExpiringMap[K comparable, V any] struct {
	Cache[K, V]
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// NewExpiringMap is the near-miss of NewCache: the janitor selects on a stop
// channel and is counted in m.wg, and Close closes the channel and waits.
// From: jellydator/ttlcache#24
// ok: untrackedgo
func NewExpiringMap[K comparable, V any](ttl, interval time.Duration) *ExpiringMap[K, V] {
	m := &ExpiringMap[K, V]{
		Cache: Cache[K, V]{ttl: ttl, items: make(map[K]entry[V])},
		stop:  make(chan struct{}),
	}
	m.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case now := <-t.C:
				m.sweep(now)
			}
		}
	})
	return m
}

// Close stops the janitor and waits for it.
// ok: untrackedgo
func (m *ExpiringMap[K, V]) Close() {
	m.once.Do(func() { close(m.stop) })
	m.wg.Wait()
}
