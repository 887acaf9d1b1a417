package untracked

import (
	"context"
	"errors"
	"iter"
	"sync"
)

// Pinger probes a single peer.
type Pinger interface {
	Ping(ctx context.Context, peer string) error
}

// PeerSet is the current netmap.
type PeerSet struct {
	mu    sync.Mutex
	peers []string
}

// All iterates over a snapshot of the peers.
// ok: untrackedgo
func (s *PeerSet) All() iter.Seq[string] {
	s.mu.Lock()
	snap := append([]string(nil), s.peers...)
	s.mu.Unlock()
	return func(yield func(string) bool) {
		for _, p := range snap {
			if !yield(p) {
				return
			}
		}
	}
}

// Prober pings every peer after a netmap change.
type Prober struct {
	peers  *PeerSet
	pinger Pinger
	sink   errSink
}

// ProbeAll fires one goroutine per peer and returns immediately; nothing
// accounts for them, so they outlive the call and the caller's context.
// From: tailscale/tailscale#14520
// bug: untrackedgo
func (p *Prober) ProbeAll(ctx context.Context) {
	for peer := range p.peers.All() {
		go func() {
			p.sink.add(p.pinger.Ping(ctx, peer))
		}()
	}
}

// ProbeAllNearMiss joins every ping before returning their errors.
// ok: untrackedgo
func (p *Prober) ProbeAllNearMiss(ctx context.Context) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for peer := range p.peers.All() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.pinger.Ping(ctx, peer); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Err reports the errors recorded by earlier probes.
// ok: untrackedgo
func (p *Prober) Err() error {
	return p.sink.join()
}
