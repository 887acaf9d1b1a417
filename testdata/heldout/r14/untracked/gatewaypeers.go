package untracked

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// PeerGateway accepts peers and keeps a minimum number of outbound
// connections.
type PeerGateway struct {
	listener net.Listener
	mu       sync.Mutex
	peers    map[string]net.Conn
	nodes    []string
	minPeers int
	log      *slog.Logger
	closing  chan struct{}
	threads  sync.WaitGroup
}

// numPeers returns the number of connected peers.
//
// ok: untrackedgo
func (g *PeerGateway) numPeers() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.peers)
}

// connectOne dials a known node that is not yet a peer.
//
// ok: untrackedgo
func (g *PeerGateway) connectOne() {
	g.mu.Lock()
	var addr string
	for _, n := range g.nodes {
		if _, ok := g.peers[n]; !ok {
			addr = n
			break
		}
	}
	g.mu.Unlock()
	if addr == "" {
		return
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		g.log.Debug("outbound dial failed", "addr", addr, "err", err)
		return
	}
	g.mu.Lock()
	g.peers[addr] = conn
	g.mu.Unlock()
}

// NewPeerGateway listens on addr and starts topping up outbound peers.
//
// From: NebulousLabs/Sia#704
// bug: untrackedgo
func NewPeerGateway(addr string, nodes []string, log *slog.Logger) (*PeerGateway, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := &PeerGateway{listener: l, peers: map[string]net.Conn{}, nodes: nodes, minPeers: 8, log: log}
	go func() {
		for {
			if g.numPeers() < g.minPeers {
				g.connectOne()
			}
			time.Sleep(5 * time.Second)
		}
	}()
	return g, nil
}

// Close closes the listener.
//
// ok: untrackedgo
func (g *PeerGateway) Close() error {
	return g.listener.Close()
}

// NewPeerGatewayNearMiss runs the top-up loop as a tracked thread that
// leaves when closing is closed.
//
// ok: untrackedgo
func NewPeerGatewayNearMiss(addr string, nodes []string, log *slog.Logger) (*PeerGateway, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	g := &PeerGateway{listener: l, peers: map[string]net.Conn{}, nodes: nodes, minPeers: 8, log: log, closing: make(chan struct{})}
	g.threads.Add(1)
	go func() {
		defer g.threads.Done()
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			if g.numPeers() < g.minPeers {
				g.connectOne()
			}
			select {
			case <-g.closing:
				return
			case <-t.C:
			}
		}
	}()
	return g, nil
}

// CloseNearMiss stops the top-up loop, waits for it and closes the
// listener.
//
// ok: untrackedgo
func (g *PeerGateway) CloseNearMiss() error {
	close(g.closing)
	g.threads.Wait()
	return g.listener.Close()
}
