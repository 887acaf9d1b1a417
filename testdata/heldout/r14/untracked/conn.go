package untracked

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync"
)

// frame is one protocol frame.
type frame struct {
	stream uint16
	body   []byte
}

// CQLConn is one connection with a reader and a writer goroutine.
type CQLConn struct {
	conn     net.Conn
	requests chan frame
	handler  func(frame)
	done     chan struct{}
	wg       sync.WaitGroup
}

// reader dispatches incoming frames until the socket fails.
//
// ok: untrackedgo
func (c *CQLConn) reader() {
	r := bufio.NewReader(c.conn)
	for {
		b, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		c.handler(frame{body: b})
	}
}

// writer sends queued frames.
//
// ok: untrackedgo
func (c *CQLConn) writer() {
	for f := range c.requests {
		if _, err := c.conn.Write(f.body); err != nil {
			continue
		}
	}
}

// OpenCQLConn dials addr and starts the reader and writer.
//
// From: scylladb/scylla-go-driver#115
// bug: untrackedgo
func OpenCQLConn(ctx context.Context, addr string, handler func(frame)) (*CQLConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &CQLConn{conn: nc, requests: make(chan frame, 64), handler: handler}
	go c.reader()
	go c.writer()
	return c, nil
}

// Close closes the socket.
//
// ok: untrackedgo
func (c *CQLConn) Close() error {
	return c.conn.Close()
}

// writerNearMiss sends queued frames until the connection is closed.
//
// ok: untrackedgo
func (c *CQLConn) writerNearMiss() {
	for {
		select {
		case <-c.done:
			return
		case f := <-c.requests:
			if _, err := c.conn.Write(f.body); err != nil {
				return
			}
		}
	}
}

// OpenCQLConnNearMiss starts both goroutines under a WaitGroup, and the
// writer stops on done.
//
// ok: untrackedgo
func OpenCQLConnNearMiss(ctx context.Context, addr string, handler func(frame)) (*CQLConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &CQLConn{conn: nc, requests: make(chan frame, 64), handler: handler, done: make(chan struct{})}
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		c.reader()
	}()
	go func() {
		defer c.wg.Done()
		c.writerNearMiss()
	}()
	return c, nil
}

// CloseNearMiss closes the socket, stops the writer and waits for both.
//
// ok: untrackedgo
func (c *CQLConn) CloseNearMiss() error {
	close(c.done)
	err := c.conn.Close()
	c.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
