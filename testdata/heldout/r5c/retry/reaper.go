package retry

import (
	"context"
	"sync"
	"time"
)

type idleConn struct {
	lastUsed time.Time
	close    func()
}

// ConnPool keeps idle connections and evicts stale ones.
type ConnPool struct {
	mu        sync.Mutex
	idle      []idleConn
	idleCheck time.Duration
	maxIdle   time.Duration
}

// evictIdle closes connections idle for longer than maxIdle.
// ok: retrycancel
func (p *ConnPool) evictIdle(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.idle[:0]
	for _, c := range p.idle {
		if now.Sub(c.lastUsed) > p.maxIdle {
			c.close()
			continue
		}
		kept = append(kept, c)
	}
	p.idle = kept
}

// ReapIdle evicts idle connections every tick until ctx is done. The `break`
// in the ctx.Done case only leaves the select, not the for loop, so after
// cancellation the loop spins on the closed Done channel forever.
// From: MetaCubeX/mihomo#2964
// bug: retrycancel
func (p *ConnPool) ReapIdle(ctx context.Context) {
	ticker := time.NewTicker(p.idleCheck)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			break
		case now := <-ticker.C:
			p.evictIdle(now)
		}
	}
}

// ReapExpired is the near-miss of ReapIdle: the loop is labelled and the
// ctx.Done case breaks out of the loop itself.
// From: MetaCubeX/mihomo#2964
// ok: retrycancel
func (p *ConnPool) ReapExpired(ctx context.Context) {
	ticker := time.NewTicker(p.idleCheck)
	defer ticker.Stop()
reap:
	for {
		select {
		case <-ctx.Done():
			break reap
		case now := <-ticker.C:
			p.evictIdle(now)
		}
	}
}
