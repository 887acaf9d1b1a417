package untracked

import (
	"context"
	"errors"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// MuxConfig configures the daemon.
type MuxConfig struct {
	InstrumentationAddress string
	LeaseName              string
}

// Lease is a held distributed lock.
type Lease interface {
	Release(ctx context.Context) error
}

// Mux is the invoice multiplexer.
type Mux interface {
	Run(ctx context.Context) error
}

// Daemon wires the daemon's parts together.
type Daemon struct {
	acquireLease func(ctx context.Context, name string) (Lease, error)
	newMux       func() Mux
}

// newInstrumentationServer serves metrics on addr.
//
// ok: untrackedgo
func newInstrumentationServer(addr string) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {})
	return &http.Server{Addr: addr, Handler: mux}
}

// serveInstrumentation runs srv until it is shut down.
//
// ok: untrackedgo
func serveInstrumentation(srv *http.Server) error {
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Run starts the metrics server first, so it is up while waiting for the
// lease, then runs the multiplexer.
//
// From: NYDIG-OSS/lnmux#88
// bug: untrackedgo
func (d *Daemon) Run(ctx context.Context, cfg MuxConfig) error {
	group, gctx := errgroup.WithContext(ctx)
	inst := newInstrumentationServer(cfg.InstrumentationAddress)
	group.Go(func() error { return serveInstrumentation(inst) })
	group.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), 5*time.Second)
		defer cancel()
		return inst.Shutdown(sctx)
	})

	lease, err := d.acquireLease(gctx, cfg.LeaseName)
	if err != nil {
		return err
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()

	mux := d.newMux()
	group.Go(func() error { return mux.Run(gctx) })
	return group.Wait()
}

// RunNearMiss takes the lease inside the group too, so a failure cancels
// gctx, stops the metrics server and still goes through Wait.
//
// ok: untrackedgo
func (d *Daemon) RunNearMiss(ctx context.Context, cfg MuxConfig) error {
	group, gctx := errgroup.WithContext(ctx)
	inst := newInstrumentationServer(cfg.InstrumentationAddress)
	group.Go(func() error { return serveInstrumentation(inst) })
	group.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(gctx), 5*time.Second)
		defer cancel()
		return inst.Shutdown(sctx)
	})
	group.Go(func() error {
		lease, err := d.acquireLease(gctx, cfg.LeaseName)
		if err != nil {
			return err
		}
		defer func() { _ = lease.Release(context.WithoutCancel(gctx)) }()
		return d.newMux().Run(gctx)
	})
	return group.Wait()
}
