package retry

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// talosConn is one gRPC connection to the Talos API.
type talosConn interface {
	Close() error
}

// TalosClient wraps a refreshable Talos connection.
type TalosClient struct {
	mu          sync.Mutex
	conn        talosConn
	dial        func() (talosConn, error)
	retryBudget time.Duration
	log         *slog.Logger
}

// errUnavailable stands for codes.Unavailable from the API.
var errUnavailable = errors.New("rpc error: code = Unavailable")

// isTransient reports whether err is worth another attempt on a fresh
// connection.
//
// ok: retrycancel
func isTransient(err error) bool {
	return errors.Is(err, errUnavailable) || errors.Is(err, context.DeadlineExceeded)
}

// refresh closes the current connection and dials a new one.
//
// ok: retrycancel
func (c *TalosClient) refresh() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
	}
	conn, err := c.dial()
	if err != nil {
		c.log.Warn("talos redial failed", "err", err)
		return
	}
	c.conn = conn
}

// current returns the connection in use.
//
// ok: retrycancel
func (c *TalosClient) current() talosConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

// executeWithRetry runs op, refreshing the client and retrying on transient
// errors until its own retry budget runs out.
//
// From: home-operations/tuppr#458
// bug: retrycancel
func (c *TalosClient) executeWithRetry(ctx context.Context, op func(context.Context, talosConn) error) error {
	deadline := time.Now().Add(c.retryBudget)
	for {
		err := op(ctx, c.current())
		if err == nil {
			return nil
		}
		if !isTransient(err) || time.Now().After(deadline) {
			return err
		}
		c.log.Info("transient talos error, refreshing client", "err", err)
		c.refresh()
	}
}

// executeWithRetryNearMiss gives up at once when the caller's own context
// has expired; only server-side failures get a refreshed client.
//
// ok: retrycancel
func (c *TalosClient) executeWithRetryNearMiss(ctx context.Context, op func(context.Context, talosConn) error) error {
	deadline := time.Now().Add(c.retryBudget)
	for {
		err := op(ctx, c.current())
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !isTransient(err) || time.Now().After(deadline) {
			return err
		}
		c.log.Info("transient talos error, refreshing client", "err", err)
		c.refresh()
	}
}
