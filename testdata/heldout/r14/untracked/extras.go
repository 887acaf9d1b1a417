package untracked

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// resizeAll resizes images concurrently; every goroutine is joined by
// g.Wait before returning, including on error.
//
// ok: untrackedgo
func resizeAll(ctx context.Context, paths []string, resize func(context.Context, string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, p := range paths {
		g.Go(func() error { return resize(ctx, p) })
	}
	return g.Wait()
}

// serveUntil runs srv on ln until ctx ends, then shuts it down and waits
// for Serve to return before returning itself.
//
// ok: untrackedgo
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	shutErr := srv.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return shutErr
}

// hashConcurrently starts one goroutine and always receives its result,
// which joins it.
//
// ok: untrackedgo
func hashConcurrently(data []byte, hash func([]byte) string, other func() error) (string, error) {
	out := make(chan string, 1)
	go func() { out <- hash(data) }()
	err := other()
	return <-out, err
}

// Debouncer fires fn after a quiet period.
type Debouncer struct {
	timer *time.Timer
}

// Trigger (re)arms the timer; time.AfterFunc is stopped in Stop.
//
// ok: untrackedgo
func (d *Debouncer) Trigger(wait time.Duration, fn func()) {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.timer = time.AfterFunc(wait, fn)
}

// Stop cancels a pending call.
//
// ok: untrackedgo
func (d *Debouncer) Stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
}
