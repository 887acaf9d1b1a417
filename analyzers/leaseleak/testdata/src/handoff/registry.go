package handoff

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

type fetcher struct {
	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	download func(ctx context.Context, mod string) ([]byte, error)
	cancel   context.CancelFunc
}

// fetch registers the cancel so an admin can abort the download, and takes
// the entry back itself on success only: a failed download leaves its
// entry and its context behind.
func (f *fetcher) fetch(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // want `the cancel function of context.WithTimeout is not called on the path through the return`
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	data, err := f.download(ctx, mod)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	delete(f.inflight, mod)
	f.mu.Unlock()
	cancel()
	return data, nil
}

// fetchReleased takes the entry back and cancels on every path.
func (f *fetcher) fetchReleased(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, mod)
		f.mu.Unlock()
		cancel()
	}()
	return f.download(ctx, mod)
}

// register hands the cancel to the map for good: whoever removes the entry
// calls it.
func (f *fetcher) register(ctx context.Context, mod string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	return ctx
}

// replace deletes a different entry than the one it registers.
func (f *fetcher) replace(ctx context.Context, mod, old string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	delete(f.inflight, old)
	f.inflight[mod] = cancel
	f.mu.Unlock()
	return ctx
}

// start keeps the cancel in a field while it works and clears it on the
// way out, but a failed first step returns with the field still set and
// the context never canceled.
func (f *fetcher) start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is not called on the path through the return`
	f.cancel = cancel
	if _, err := f.download(ctx, "first"); err != nil {
		return err
	}
	f.cancel = nil
	cancel()
	return nil
}

// startOwned hands the cancel to the field for Stop to call.
func (f *fetcher) startOwned(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	if _, err := f.download(ctx, "first"); err != nil {
		cancel()
		return errors.New("first download failed")
	}
	f.cancel = cancel
	return nil
}

// Close ends what startOwned started.
func (f *fetcher) Close() {
	if f.cancel != nil {
		f.cancel()
	}
}

type redialer struct {
	conn net.Conn
	addr string
}

// redial clears the old connection before it stores the new one: the
// field keeps the new one for good, a hand-off.
func (r *redialer) redial(ctx context.Context) error {
	if r.conn != nil {
		r.conn.Close()
		r.conn = nil
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", r.addr)
	if err != nil {
		return err
	}
	r.conn = conn
	return nil
}

// probe stores the connection for its own run and clears it after: the
// failing path leaves it open.
func (r *redialer) probe(ctx context.Context, check func(net.Conn) error) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", r.addr) // want `the connection conn from \(\*net.Dialer\).DialContext is not closed on the path through the return when err != nil`
	if err != nil {
		return err
	}
	r.conn = conn
	if err := check(conn); err != nil {
		return err
	}
	r.conn = nil
	return conn.Close()
}
