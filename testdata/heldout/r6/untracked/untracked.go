// Package untracked holds go statements and whether something joins or
// bounds them.
package untracked

import (
	"context"
	"log/slog"
	"net/http"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Auditor records audit events.
type Auditor interface {
	Record(ctx context.Context, event string) error
}

// Server is an HTTP front end with asynchronous auditing.
type Server struct {
	Audit Auditor
	wg    sync.WaitGroup
}

// HandleMessage answers 202 and processes the message in a goroutine bound
// to r.Context(); net/http cancels that context as soon as the handler
// returns, so the background audit nearly always fails with
// context.Canceled, and nothing waits for it on shutdown.
// From: mark3labs/mcp-go#248
// bug: untrackedgo
func (s *Server) HandleMessage(w http.ResponseWriter, r *http.Request) {
	msg := r.URL.Query().Get("m")
	w.WriteHeader(http.StatusAccepted)
	go func() {
		if err := s.Audit.Record(r.Context(), msg); err != nil {
			slog.Error("audit", "err", err)
		}
	}()
}

// HandleMessageTracked detaches the goroutine from the request's
// cancellation (keeping its values) and registers it with s.wg, which
// Shutdown waits on.
// ok: untrackedgo
func (s *Server) HandleMessageTracked(w http.ResponseWriter, r *http.Request) {
	msg := r.URL.Query().Get("m")
	ctx := context.WithoutCancel(r.Context())
	w.WriteHeader(http.StatusAccepted)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.Audit.Record(ctx, msg); err != nil {
			slog.Error("audit", "err", err)
		}
	}()
}

// Shutdown waits for the tracked background work.
// ok: untrackedgo
func (s *Server) Shutdown() {
	s.wg.Wait()
}

// MapAll starts one goroutine per item and returns the slice immediately;
// the goroutines are still writing into it while the caller reads it (data
// race, zero values in the result).
// From: zenazn/goji#177
// bug: untrackedgo
func MapAll[T, R any](items []T, f func(T) R) []R {
	out := make([]R, len(items))
	for i, it := range items {
		go func() {
			out[i] = f(it)
		}()
	}
	return out
}

// MapAllJoined waits for every goroutine before returning.
// ok: untrackedgo
func MapAllJoined[T, R any](items []T, f func(T) R) []R {
	out := make([]R, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Go(func() {
			out[i] = f(it)
		})
	}
	wg.Wait()
	return out
}

// Cache holds data refreshed from a loader.
type Cache struct {
	mu     sync.Mutex
	data   map[string]string
	load   func(ctx context.Context) (map[string]string, error)
	wg     sync.WaitGroup
	closed bool
}

// Refresh fires a reload goroutine on every call; nothing bounds how many
// run at once and Close does not wait for them, so reloads keep writing
// c.data after Close returned.
// From: inference-gateway/inference-gateway#306
// bug: untrackedgo
func (c *Cache) Refresh(ctx context.Context) {
	go func() {
		m, err := c.load(ctx)
		if err != nil {
			return
		}
		c.mu.Lock()
		c.data = m
		c.mu.Unlock()
	}()
}

// RefreshTracked registers the reload with c.wg and refuses after Close.
// ok: untrackedgo
func (c *Cache) RefreshTracked(ctx context.Context) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		m, err := c.load(ctx)
		if err != nil {
			return
		}
		c.mu.Lock()
		if !c.closed {
			c.data = m
		}
		c.mu.Unlock()
	}()
}

// Close stops accepting refreshes and waits for tracked ones.
// ok: untrackedgo
func (c *Cache) Close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
}

// EventClient publishes events.
type EventClient interface {
	PutEvent(ctx context.Context, name string) error
}

// TemplateService creates templates.
type TemplateService struct {
	Events EventClient
	Save   func(ctx context.Context, name string) error
	bg     sync.WaitGroup
}

// Create saves the template and publishes an event in a goroutine that uses
// the RPC's ctx; the ctx is canceled when Create returns, so PutEvent fails
// with "context canceled", and no one waits for the goroutine.
// From: go-kratos/kratos#2884
// bug: untrackedgo
func (t *TemplateService) Create(ctx context.Context, name string) error {
	if err := t.Save(ctx, name); err != nil {
		return err
	}
	go func() {
		if err := t.Events.PutEvent(ctx, name); err != nil {
			slog.Error("put event", "err", err)
		}
	}()
	return nil
}

// CreateTracked uses a detached context and a tracked goroutine.
// ok: untrackedgo
func (t *TemplateService) CreateTracked(ctx context.Context, name string) error {
	if err := t.Save(ctx, name); err != nil {
		return err
	}
	ectx := context.WithoutCancel(ctx)
	t.bg.Go(func() {
		if err := t.Events.PutEvent(ectx, name); err != nil {
			slog.Error("put event", "err", err)
		}
	})
	return nil
}

// Wait waits for background publishes.
// ok: untrackedgo
func (t *TemplateService) Wait() {
	t.bg.Wait()
}

// Consume handles each message in its own goroutine and returns when the
// channel closes; handlers are unbounded and still running after Consume
// returns, when the caller has already closed the store they write to.
// From: bookingcom/carbonapi#149
// bug: untrackedgo
func Consume(ctx context.Context, msgs <-chan string, handle func(context.Context, string)) {
	for m := range msgs {
		go handle(ctx, m)
	}
}

// ConsumeBounded limits concurrency and waits before returning.
// ok: untrackedgo
func ConsumeBounded(ctx context.Context, msgs <-chan string, handle func(context.Context, string)) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for m := range msgs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			handle(ctx, m)
		}()
	}
	wg.Wait()
}

// PublishAll starts a nested raw goroutine inside g.Go; Wait only joins the
// outer function, which returns at once, and Wait then cancels gctx, so the
// publishes run unjoined on a canceled context.
// From: mark3labs/mcp-go#248
// bug: untrackedgo
func PublishAll(ctx context.Context, names []string, pub func(context.Context, string) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, n := range names {
		g.Go(func() error {
			go func() { _ = pub(gctx, n) }()
			return nil
		})
	}
	return g.Wait()
}

// PublishAllJoined runs the publish directly inside g.Go.
// ok: untrackedgo
func PublishAllJoined(ctx context.Context, names []string, pub func(context.Context, string) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, n := range names {
		g.Go(func() error {
			return pub(gctx, n)
		})
	}
	return g.Wait()
}

// Gather fans out with errgroup; every goroutine is joined by Wait.
// ok: untrackedgo
func Gather(ctx context.Context, urls []string, get func(context.Context, string) (int, error)) ([]int, error) {
	out := make([]int, len(urls))
	g, gctx := errgroup.WithContext(ctx)
	for i, u := range urls {
		g.Go(func() error {
			n, err := get(gctx, u)
			out[i] = n
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Merge returns a channel fed by workers plus a closer goroutine. The
// goroutines outlive Merge by design: they end when the inputs close or ctx
// is done, and the caller's range over the result joins them.
// ok: untrackedgo
func Merge(ctx context.Context, ins ...<-chan int) <-chan int {
	out := make(chan int)
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range in {
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}
