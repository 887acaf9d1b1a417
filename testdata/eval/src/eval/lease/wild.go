package lease

import (
	"context"
	"net"
)

type Watcher struct {
	conn   net.Conn
	cancel context.CancelFunc
}

// ok: leaseleak
func (w *Watcher) Close() error {
	w.cancel()
	return w.conn.Close()
}

// The cancel function is handed to the watcher on success only; the dial
// error path leaks it.
//
// bug: leaseleak
func NewWatcher(ctx context.Context, addr string) (*Watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Watcher{conn: conn, cancel: cancel}, nil
}

// ok: leaseleak
func NewWatcherOK(ctx context.Context, addr string) (*Watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Watcher{conn: conn, cancel: cancel}, nil
}

// A switch returns with the write lock held for one command.
//
// bug: leaseleak
func (r *Repo) Apply(cmd, key, val string) bool {
	r.rw.Lock()
	switch cmd {
	case "set":
		r.cache[key] = val
	case "del":
		delete(r.cache, key)
	default:
		return false
	}
	r.rw.Unlock()
	return true
}
