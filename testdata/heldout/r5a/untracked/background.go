// Package untracked holds goroutines whose lifetime is, or is not, bounded by their owner.
package untracked

import (
	"io"
	"sync"
	"time"
)

// poolConn is an idle connection kept by ConnPool.
type poolConn struct {
	addr     string
	lastUsed time.Time
	broken   bool
}

// ConnPool keeps idle connections that a background checker prunes.
type ConnPool struct {
	mu     sync.Mutex
	idle   []*poolConn
	maxAge time.Duration
	pruned int
}

// pruneBroken drops broken or stale idle connections and reports how many it removed.
// ok: untrackedgo
func (p *ConnPool) pruneBroken(now time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.idle[:0]
	removed := 0
	for _, c := range p.idle {
		if c.broken || now.Sub(c.lastUsed) > p.maxAge {
			removed++
			continue
		}
		kept = append(kept, c)
	}
	p.idle = kept
	p.pruned += removed
	return removed
}

// StartHealthCheck launches the idle-connection checker and returns a stop function. Stop only
// closes the signal channel and returns at once; nothing waits for the checker, so it can still be
// pruning the pool after the caller has torn the pool down (goleak reports it at exit).
// From: ClickHouse/ch-go#1048
// bug: untrackedgo
func StartHealthCheck(p *ConnPool, every time.Duration) (stop func()) {
	closeCh := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-closeCh:
				return
			case now := <-t.C:
				p.pruneBroken(now)
			}
		}
	}()
	return func() { close(closeCh) }
}

// StartHealthCheckJoined is StartHealthCheck with the fix from the report: the returned stop
// function signals the checker and then blocks until the checker goroutine has exited.
// ok: untrackedgo
func StartHealthCheckJoined(p *ConnPool, every time.Duration) (stop func()) {
	closeCh := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-closeCh:
				return
			case now := <-t.C:
				p.pruneBroken(now)
			}
		}
	}()
	return func() {
		close(closeCh)
		<-exited
	}
}

// Sample is one buffered metric point.
type Sample struct {
	Name  string
	Value float64
}

// MetricsFlusher buffers samples and writes them to sink periodically.
type MetricsFlusher struct {
	mu      sync.Mutex
	pending []Sample
	sink    io.Writer
	lastErr error
}

// Add buffers a sample.
// ok: untrackedgo
func (f *MetricsFlusher) Add(s Sample) {
	f.mu.Lock()
	f.pending = append(f.pending, s)
	f.mu.Unlock()
}

// flush writes and clears the buffered samples, remembering the last write error.
// ok: untrackedgo
func (f *MetricsFlusher) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.pending {
		if _, err := io.WriteString(f.sink, s.Name+"\n"); err != nil {
			f.lastErr = err
			return
		}
	}
	f.pending = f.pending[:0]
}

// Start launches the flush loop and returns the ticker's Stop method as the stop function. The loop
// ranges over the ticker channel, and Ticker.Stop never closes that channel, so after stop the
// goroutine blocks in the range forever.
// From: InVisionApp/go-health#35
// bug: untrackedgo
func (f *MetricsFlusher) Start(every time.Duration) (stop func()) {
	t := time.NewTicker(every)
	go func() {
		for range t.C {
			f.flush()
		}
	}()
	return t.Stop
}

// StartStoppable is the fixed flush loop: it selects on a done channel next to the ticker, and the
// stop function closes done and waits for the goroutine to leave.
// ok: untrackedgo
func (f *MetricsFlusher) StartStoppable(every time.Duration) (stop func()) {
	t := time.NewTicker(every)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				f.flush()
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// entry is one cached value with its expiry.
type entry[V any] struct {
	val     V
	expires time.Time
}

// TTLCache is a generic expiring cache with a background janitor.
type TTLCache[K comparable, V any] struct {
	mu    sync.Mutex
	ttl   time.Duration
	items map[K]entry[V]
	stop  chan struct{}
	done  chan struct{}
}

// evict removes expired entries.
// ok: untrackedgo
func (c *TTLCache[K, V]) evict(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.items {
		if now.After(e.expires) {
			delete(c.items, k)
		}
	}
}

// Set stores v under k for the cache's TTL.
// ok: untrackedgo
func (c *TTLCache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	c.items[k] = entry[V]{val: v, expires: time.Now().Add(c.ttl)}
	c.mu.Unlock()
}

// NewTTLCache builds the cache and starts its janitor. The janitor has no stop signal at all and
// the cache has no Close, so every cache ever built keeps a goroutine (and its map) alive for the
// rest of the process.
// From: jellydator/ttlcache#24
// bug: untrackedgo
func NewTTLCache[K comparable, V any](ttl time.Duration) *TTLCache[K, V] {
	c := &TTLCache[K, V]{ttl: ttl, items: make(map[K]entry[V])}
	go func() {
		t := time.NewTicker(ttl / 2)
		defer t.Stop()
		for now := range t.C {
			c.evict(now)
		}
	}()
	return c
}

// NewClosableTTLCache is the fixed constructor: the janitor selects on c.stop and signals c.done,
// and Close stops and joins it.
// ok: untrackedgo
func NewClosableTTLCache[K comparable, V any](ttl time.Duration) *TTLCache[K, V] {
	c := &TTLCache[K, V]{
		ttl:   ttl,
		items: make(map[K]entry[V]),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		t := time.NewTicker(ttl / 2)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case now := <-t.C:
				c.evict(now)
			}
		}
	}()
	return c
}

// Close stops the janitor started by NewClosableTTLCache and waits for it.
// ok: untrackedgo
func (c *TTLCache[K, V]) Close() {
	close(c.stop)
	<-c.done
}
