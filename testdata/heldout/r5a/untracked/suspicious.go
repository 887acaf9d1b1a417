package untracked

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"heldoutr5a/internal/syncx"
)

// ServeUntil runs srv.Serve in a goroutine and joins it on both exits: if Serve fails first its error
// is received; if ctx ends first the server is closed and the goroutine's result is still received.
// ok: untrackedgo
func ServeUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		closeErr := srv.Close()
		serveErr := <-errc
		if !errors.Is(serveErr, http.ErrServerClosed) {
			return errors.Join(ctx.Err(), serveErr, closeErr)
		}
		return errors.Join(ctx.Err(), closeErr)
	}
}

// Lookup resolves one host.
type Lookup func(ctx context.Context, host string) ([]string, error)

// ResolveAll fans out lookups and closes the results channel from a goroutine that waits on the
// WaitGroup. The closer looks unjoined, but the range below only ends once it has closed out, which
// happens after every lookup goroutine has finished.
// ok: untrackedgo
func ResolveAll(ctx context.Context, hosts []string, lookup Lookup) (map[string][]string, error) {
	type res struct {
		host  string
		addrs []string
		err   error
	}
	out := make(chan res, len(hosts))
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() {
			addrs, err := lookup(ctx, h)
			out <- res{host: h, addrs: addrs, err: err}
		})
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	found := make(map[string][]string, len(hosts))
	var errs []error
	for r := range out {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("lookup %s: %w", r.host, r.err))
			continue
		}
		found[r.host] = r.addrs
	}
	return found, errors.Join(errs...)
}

// WarmCaches starts one warmer per cache through the syncx.Go helper, which registers each goroutine
// with wg before starting it, and waits for all of them.
// ok: untrackedgo
func WarmCaches(caches []*TTLCache[string, []byte], seed map[string][]byte) {
	var wg sync.WaitGroup
	for _, c := range caches {
		syncx.Go(&wg, func() {
			for k, v := range seed {
				c.Set(k, v)
			}
		})
	}
	wg.Wait()
}

// ConfigSource reports config changes.
type ConfigSource interface {
	Changes(ctx context.Context) (<-chan []byte, error)
}

// ApplyConfigUpdates watches src in a helper goroutine and applies updates while fn runs. The
// deferred closure cancels the watcher's context and then waits for it, so it cannot outlive the call.
// ok: untrackedgo
func ApplyConfigUpdates(ctx context.Context, src ConfigSource, apply func([]byte), fn func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	changes, err := src.Changes(ctx)
	if err != nil {
		cancel()
		return fmt.Errorf("watch config: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-ctx.Done():
				return
			case b, ok := <-changes:
				if !ok {
					return
				}
				apply(b)
			}
		}
	}()
	defer func() {
		cancel()
		<-exited
	}()
	return fn(ctx)
}

// Daemon is the long-running part of a command; its context is the process lifetime context built
// in main from signal.NotifyContext.
type Daemon struct {
	pool     *ConnPool
	interval time.Duration
}

// Run starts the pool checker and blocks until the process context ends, then stops and joins the
// checker before returning, so nothing it started survives Run.
// ok: untrackedgo
func (d *Daemon) Run(ctx context.Context) error {
	stop := StartHealthCheckJoined(d.pool, d.interval)
	defer stop()
	<-ctx.Done()
	return ctx.Err()
}
