package detached

import (
	"context"
	"net"
	"time"
)

// Connection is an outbound peer connection.
type Connection struct {
	conn     net.Conn
	hostPort string
}

// Channel manages peer connections.
type Channel struct {
	connectTimeout time.Duration
}

// newOutboundConn dials hostPort with net.DialTimeout. It copies ctx's
// deadline into the timeout but not its cancellation, so a call canceled by
// its caller still waits out the whole connect attempt.
// From: uber/tchannel-go#540
// bug: detachedctx
func (ch *Channel) newOutboundConn(ctx context.Context, hostPort string) (*Connection, error) {
	timeout := ch.connectTimeout
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); d < timeout {
			timeout = d
		}
	}
	conn, err := net.DialTimeout("tcp", hostPort, timeout)
	if err != nil {
		return nil, err
	}
	return &Connection{conn: conn, hostPort: hostPort}, nil
}

// dialPeer is the near-miss of newOutboundConn: a net.Dialer with the
// connect timeout dials with DialContext(ctx, ...), so both the deadline and
// the cancellation reach the dial.
// From: uber/tchannel-go#540
// ok: detachedctx
func (ch *Channel) dialPeer(ctx context.Context, hostPort string) (*Connection, error) {
	d := net.Dialer{Timeout: ch.connectTimeout}
	conn, err := d.DialContext(ctx, "tcp", hostPort)
	if err != nil {
		return nil, err
	}
	return &Connection{conn: conn, hostPort: hostPort}, nil
}

// Connect opens a connection to hostPort.
// ok: detachedctx
func (ch *Channel) Connect(ctx context.Context, hostPort string) (*Connection, error) {
	return ch.dialPeer(ctx, hostPort)
}

// ConnectLegacy opens a connection through the older dial path (the defect
// belongs to newOutboundConn).
// ok: detachedctx
func (ch *Channel) ConnectLegacy(ctx context.Context, hostPort string) (*Connection, error) {
	return ch.newOutboundConn(ctx, hostPort)
}
