package untracked

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// GatewayConn is one websocket to the chat gateway.
type GatewayConn interface {
	SendHeartbeat(seq int) error
	Close() error
}

// Dialer opens gateway connections.
type Dialer interface {
	Dial(ctx context.Context, url string) (GatewayConn, error)
}

// Gateway keeps a gateway session alive across reconnects.
type Gateway struct {
	dialer   Dialer
	url      string
	interval time.Duration
	log      *slog.Logger

	mu   sync.Mutex
	conn GatewayConn
	seq  int
	stop chan struct{}
	hb   sync.WaitGroup
}

// Open dials the gateway and starts heartbeating on the new connection. It
// is called again for every reconnect and resume.
//
// From: disgoorg/disgo#246
// bug: untrackedgo
func (g *Gateway) Open(ctx context.Context) error {
	conn, err := g.dialer.Dial(ctx, g.url)
	if err != nil {
		return err
	}
	g.mu.Lock()
	if g.conn != nil {
		_ = g.conn.Close()
	}
	g.conn = conn
	g.mu.Unlock()

	go func() {
		ticker := time.NewTicker(g.interval)
		defer ticker.Stop()
		for range ticker.C {
			g.mu.Lock()
			seq := g.seq
			g.mu.Unlock()
			if err := conn.SendHeartbeat(seq); err != nil {
				g.log.Debug("heartbeat failed", "err", err)
			}
		}
	}()
	return nil
}

// OpenNearMiss stops the previous connection's heartbeat, waits for it, and
// gives the new one a stop channel of its own.
//
// ok: untrackedgo
func (g *Gateway) OpenNearMiss(ctx context.Context) error {
	conn, err := g.dialer.Dial(ctx, g.url)
	if err != nil {
		return err
	}
	g.mu.Lock()
	if g.stop != nil {
		close(g.stop)
	}
	if g.conn != nil {
		_ = g.conn.Close()
	}
	g.conn = conn
	stop := make(chan struct{})
	g.stop = stop
	g.mu.Unlock()
	g.hb.Wait()

	g.hb.Add(1)
	go func() {
		defer g.hb.Done()
		ticker := time.NewTicker(g.interval)
		defer ticker.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
			}
			g.mu.Lock()
			seq := g.seq
			g.mu.Unlock()
			if err := conn.SendHeartbeat(seq); err != nil {
				g.log.Debug("heartbeat failed", "err", err)
				return
			}
		}
	}()
	return nil
}
