package untracked

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"heldoutr5c/internal/store"
)

// Index is the server's in-memory state, shared with whoever owns the server.
type Index interface {
	Apply(rec store.Record)
	Prune(before time.Time)
}

// Server consumes records, runs a janitor and serves HTTP.
type Server struct {
	addr  string
	index Index
	inbox chan store.Record
	mux   *http.ServeMux
}

// consume applies inbox records until ctx is done.
// ok: untrackedgo
func (s *Server) consume(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case rec := <-s.inbox:
			s.index.Apply(rec)
		}
	}
}

// janitor prunes old entries every minute until ctx is done.
// ok: untrackedgo
func (s *Server) janitor(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.index.Prune(now.Add(-time.Hour))
		}
	}
}

// serve runs the HTTP server on ln until ctx is done.
// ok: untrackedgo
func (s *Server) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:     s.mux,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Run starts the consumer and the janitor, then opens the listener. If the
// listen fails it returns at once: the deferred cancel tells the goroutines to
// stop but nobody waits, so they are still running, and still touching
// s.index, after Run has returned and the caller has started tearing the
// index down.
// From: sassoftware/event-provenance-registry#40
// bug: untrackedgo
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { s.consume(ctx) })
	wg.Go(func() { s.janitor(ctx) })
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.addr, err)
	}
	defer ln.Close()
	err = s.serve(ctx, ln)
	cancel()
	wg.Wait()
	return err
}

// RunAll is the near-miss of Run: wg.Wait is deferred before cancel (defers
// run last-in first-out, so cancel fires first and Wait follows), which joins
// both goroutines on the early listen-error return as well.
// From: sassoftware/event-provenance-registry#40
// ok: untrackedgo
func (s *Server) RunAll(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { s.consume(ctx) })
	wg.Go(func() { s.janitor(ctx) })
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", s.addr, err)
	}
	defer ln.Close()
	return s.serve(ctx, ln)
}
