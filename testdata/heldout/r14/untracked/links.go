// Package untracked holds go statements and the question of whether
// anything joins or bounds the goroutines they start.
package untracked

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// LinkStore resolves short codes and counts clicks.
type LinkStore interface {
	Resolve(ctx context.Context, code string) (string, error)
	IncrementClicks(ctx context.Context, code string) error
}

// Links serves short-link redirects.
type Links struct {
	store LinkStore
	log   *slog.Logger
}

// Redirect sends the client to the target and bumps the click counter in
// the background so the redirect is not delayed.
//
// From: vancanhuit/url-shortener#40
// bug: untrackedgo
func (l *Links) Redirect(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	target, err := l.store.Resolve(r.Context(), code)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*time.Second)
		defer cancel()
		if err := l.store.IncrementClicks(ctx, code); err != nil {
			l.log.Warn("click increment failed", "code", code, "err", err)
		}
	}()
	http.Redirect(w, r, target, http.StatusFound)
}

// LinksNearMiss is Links with its background increments tracked and
// drained by the server on shutdown.
type LinksNearMiss struct {
	store LinkStore
	log   *slog.Logger
	bg    sync.WaitGroup
}

// Redirect sends the client to the target and bumps the counter in a
// tracked goroutine.
//
// ok: untrackedgo
func (l *LinksNearMiss) Redirect(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	target, err := l.store.Resolve(r.Context(), code)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	l.bg.Add(1)
	go func() {
		defer l.bg.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*time.Second)
		defer cancel()
		if err := l.store.IncrementClicks(ctx, code); err != nil {
			l.log.Warn("click increment failed", "code", code, "err", err)
		}
	}()
	http.Redirect(w, r, target, http.StatusFound)
}

// WaitForBackgroundTasks blocks until pending increments finish or ctx
// ends.
//
// ok: untrackedgo
func (l *LinksNearMiss) WaitForBackgroundTasks(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		l.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ShortenerServer owns the HTTP server and the link handlers.
type ShortenerServer struct {
	http  *http.Server
	links *LinksNearMiss
}

// Shutdown stops accepting requests and then drains background increments
// with what is left of ctx.
//
// ok: untrackedgo
func (s *ShortenerServer) Shutdown(ctx context.Context) error {
	if err := s.http.Shutdown(ctx); err != nil {
		return err
	}
	return s.links.WaitForBackgroundTasks(ctx)
}
