package untracked

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// sessionTable tracks MCP sessions and reaps idle ones.
type sessionTable struct {
	mu       sync.Mutex
	lastSeen map[string]time.Time
	idle     time.Duration
}

// reapLoop removes idle sessions until stop is closed.
// ok: untrackedgo
func (t *sessionTable) reapLoop(every time.Duration, stop <-chan struct{}) {
	tk := time.NewTicker(every)
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tk.C:
			t.mu.Lock()
			for id, seen := range t.lastSeen {
				if now.Sub(seen) > t.idle {
					delete(t.lastSeen, id)
				}
			}
			t.mu.Unlock()
		}
	}
}

// MCPServer serves an HTTP endpoint plus a session reaper; Shutdown joins everything in bg.
type MCPServer struct {
	httpServer *http.Server
	sessions   *sessionTable
	bg         sync.WaitGroup
	stop       chan struct{}
	mu         sync.Mutex
	serveErr   error
}

// NewMCPServer wires the server around handler.
// ok: untrackedgo
func NewMCPServer(handler http.Handler, idle time.Duration) *MCPServer {
	return &MCPServer{
		httpServer: &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second},
		sessions:   &sessionTable{lastSeen: make(map[string]time.Time), idle: idle},
		stop:       make(chan struct{}),
	}
}

// setServeErr remembers a non-shutdown error from Serve.
// ok: untrackedgo
func (s *MCPServer) setServeErr(err error) {
	s.mu.Lock()
	s.serveErr = err
	s.mu.Unlock()
}

// Start runs the reaper under s.bg but launches the HTTP serve loop with a bare go statement. Shutdown
// waits on s.bg only, so the serve goroutine can still be running (and writing serveErr) after
// Shutdown has returned and the process believes the extension is stopped.
// From: jaegertracing/jaeger#8852
// bug: untrackedgo
func (s *MCPServer) Start(ln net.Listener, reapEvery time.Duration) {
	s.bg.Go(func() { s.sessions.reapLoop(reapEvery, s.stop) })
	go func() {
		if err := s.httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.setServeErr(err)
		}
	}()
}

// StartTracked registers the serve loop with s.bg as well, which is the upstream fix.
// ok: untrackedgo
func (s *MCPServer) StartTracked(ln net.Listener, reapEvery time.Duration) {
	s.bg.Go(func() { s.sessions.reapLoop(reapEvery, s.stop) })
	s.bg.Go(func() {
		if err := s.httpServer.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.setServeErr(err)
		}
	})
}

// Shutdown stops the reaper and the HTTP server and waits for everything registered in s.bg.
// ok: untrackedgo
func (s *MCPServer) Shutdown(ctx context.Context) error {
	close(s.stop)
	err := s.httpServer.Shutdown(ctx)
	s.bg.Wait()
	if err != nil {
		return fmt.Errorf("shutdown http server: %w", err)
	}
	return nil
}

// auditEvent is one audited request.
type auditEvent struct {
	Method string
	Path   string
	At     time.Time
}

// AuditLog buffers audit events and flushes them to out.
type AuditLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
	out io.Writer
}

// Append formats ev into the buffer.
// ok: untrackedgo
func (l *AuditLog) Append(ev auditEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.buf, "%s %s %s\n", ev.At.Format(time.RFC3339), ev.Method, ev.Path)
}

// Flush writes the buffered events.
// ok: untrackedgo
func (l *AuditLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.buf.WriteTo(l.out)
	return err
}

// AuditedHandler records an audit event for every request; Drain is called during shutdown.
type AuditedHandler struct {
	next http.Handler
	sink *AuditLog
	bg   sync.WaitGroup
}

// ServeHTTP hands the audit append to a bare goroutine. It is not registered in h.bg, so Drain's
// Wait does not cover it and events appended after the final Flush are lost at shutdown.
// From: keybase/client#21881
// bug: untrackedgo
func (h *AuditedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ev := auditEvent{Method: r.Method, Path: r.URL.Path, At: time.Now()}
	h.next.ServeHTTP(w, r)
	go h.sink.Append(ev)
}

// serveTracked is the same handler body with the append registered in h.bg.
// ok: untrackedgo
func (h *AuditedHandler) serveTracked(w http.ResponseWriter, r *http.Request) {
	ev := auditEvent{Method: r.Method, Path: r.URL.Path, At: time.Now()}
	h.next.ServeHTTP(w, r)
	h.bg.Go(func() { h.sink.Append(ev) })
}

// Tracked exposes serveTracked as an http.Handler through a method value.
// ok: untrackedgo
func (h *AuditedHandler) Tracked() http.Handler {
	return http.HandlerFunc(h.serveTracked)
}

// Drain waits for pending appends and flushes the log.
// ok: untrackedgo
func (h *AuditedHandler) Drain() error {
	h.bg.Wait()
	return h.sink.Flush()
}
