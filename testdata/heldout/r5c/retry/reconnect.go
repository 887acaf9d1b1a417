package retry

import (
	"context"
	"net"
	"time"
)

// Reconnector keeps a connection to addr open.
type Reconnector struct {
	addr   string
	wait   time.Duration
	dialer net.Dialer
	serve  func(net.Conn)
}

// Maintain dials addr, serves the connection until it drops, and dials again.
// The wait after a failed dial selects only on the timer and nothing else in
// the loop looks at ctx, so after cancellation DialContext fails instantly and
// the loop redials every r.wait forever.
// From: OffchainLabs/nitro#3751
// bug: retrycancel
func (r *Reconnector) Maintain(ctx context.Context) {
	for {
		conn, err := r.dialer.DialContext(ctx, "tcp", r.addr)
		if err != nil {
			select {
			case <-time.After(r.wait):
			}
			continue
		}
		r.serve(conn)
		conn.Close()
	}
}

// MaintainUntilDone is the near-miss of Maintain: the wait after a failed
// dial also selects on ctx.Done and returns.
// From: OffchainLabs/nitro#3751
// ok: retrycancel
func (r *Reconnector) MaintainUntilDone(ctx context.Context) {
	for {
		conn, err := r.dialer.DialContext(ctx, "tcp", r.addr)
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(r.wait):
			}
			continue
		}
		r.serve(conn)
		conn.Close()
	}
}
