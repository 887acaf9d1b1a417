package detached

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// DialFunc is what the dqlite client calls to reach a peer.
type DialFunc func(ctx context.Context, addr string) (net.Conn, error)

// ClusterDialer dials database peers over TLS.
type ClusterDialer struct {
	tlsConfig *tls.Config
	timeout   time.Duration
}

// Dial returns the DialFunc handed to the dqlite client. The client may
// call it with a context that is already cancelled.
//
// From: canonical/microcluster#166
// bug: detachedctx
func (d *ClusterDialer) Dial() DialFunc {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		raw, err := net.DialTimeout("tcp", addr, d.timeout)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, d.tlsConfig)
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		return conn, nil
	}
}

// DialNearMiss dials with the context the client passes in.
//
// ok: detachedctx
func (d *ClusterDialer) DialNearMiss() DialFunc {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		dialer := &net.Dialer{Timeout: d.timeout}
		raw, err := dialer.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, d.tlsConfig)
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		return conn, nil
	}
}
