// Package untracked holds untrackedgo cases: goroutines nothing joins that
// outlive their owner's state, shaped after reports of handlers spawning
// work with r.Context() (canceled as soon as the handler returns),
// fan-outs that return before their workers finish (lost results and data
// races), and WaitGroup.Add called inside the goroutine.
package untracked

import (
	"context"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

type Event struct {
	Kind string
	Path string
}

type Sink interface {
	Emit(ctx context.Context, e Event) error
}

type Resolver interface {
	Resolve(ctx context.Context, host string) ([]string, error)
}

type Handler struct {
	sink Sink
	res  Resolver
}

// bug: untrackedgo
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	go h.sink.Emit(r.Context(), Event{Kind: "hit", Path: r.URL.Path})
	w.WriteHeader(http.StatusAccepted)
}

// bug: untrackedgo
func (h *Handler) handleExport(w http.ResponseWriter, r *http.Request) {
	go func() {
		time.Sleep(10 * time.Millisecond)
		w.Write([]byte("export started\n"))
	}()
	w.WriteHeader(http.StatusAccepted)
}

// bug: untrackedgo
func ResolveAll(ctx context.Context, res Resolver, hosts []string) map[string][]string {
	out := make(map[string][]string)
	var mu sync.Mutex
	for _, h := range hosts {
		go func() {
			addrs, err := res.Resolve(ctx, h)
			if err != nil {
				return
			}
			mu.Lock()
			out[h] = addrs
			mu.Unlock()
		}()
	}
	return out
}

// bug: untrackedgo
func CountReachable(ctx context.Context, res Resolver, hosts []string) int {
	var wg sync.WaitGroup
	n := 0
	var mu sync.Mutex
	for _, h := range hosts {
		go func() {
			wg.Add(1)
			defer wg.Done()
			if _, err := res.Resolve(ctx, h); err == nil {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return n
}

// bug: untrackedgo
func FirstAddr(ctx context.Context, res Resolver, host string) string {
	var addr string
	go func() {
		addrs, err := res.Resolve(ctx, host)
		if err == nil && len(addrs) > 0 {
			addr = addrs[0]
		}
	}()
	time.Sleep(50 * time.Millisecond)
	return addr
}

// bug: untrackedgo
func (h *Handler) handleNotify(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	go func() {
		if err := h.sink.Emit(ctx, Event{Kind: "notify"}); err != nil {
			log.Printf("notify: %v", err)
		}
	}()
	w.WriteHeader(http.StatusOK)
}

// bug: untrackedgo
func Broadcast(ctx context.Context, sinks []Sink, e Event) {
	for _, s := range sinks {
		go s.Emit(ctx, e)
	}
}

// bug: untrackedgo
func Warm(ctx context.Context, res Resolver, hosts []string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, h := range hosts {
		go func() {
			_, _ = res.Resolve(ctx, h)
		}()
	}
	return nil
}

// bug: untrackedgo
func (h *Handler) handleUpload(w http.ResponseWriter, r *http.Request) {
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			if n > 0 {
				_ = h.sink.Emit(context.WithoutCancel(r.Context()), Event{Kind: "chunk"})
			}
			if err != nil {
				return
			}
		}
	}()
	w.WriteHeader(http.StatusAccepted)
}

// bug: untrackedgo
func Collect(ctx context.Context, res Resolver, hosts []string) ([]string, error) {
	var all []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, _ := res.Resolve(ctx, h)
			mu.Lock()
			all = append(all, addrs...)
			mu.Unlock()
		}()
	}
	if len(hosts) > 100 {
		return nil, context.DeadlineExceeded
	}
	wg.Wait()
	return all, nil
}

// bug: untrackedgo
func Lookup(ctx context.Context, res Resolver, host string) (addrs []string, err error) {
	go func() {
		addrs, err = res.Resolve(ctx, host)
	}()
	return addrs, err
}

// bug: untrackedgo
func (h *Handler) handleBatch(w http.ResponseWriter, r *http.Request) {
	var wg sync.WaitGroup
	for _, p := range r.URL.Query()["path"] {
		go func() {
			wg.Add(1)
			defer wg.Done()
			_ = h.sink.Emit(context.WithoutCancel(r.Context()), Event{Kind: "batch", Path: p})
		}()
	}
	wg.Wait()
	w.WriteHeader(http.StatusOK)
}

// bug: untrackedgo
func Publish(ctx context.Context, s Sink, events []Event) {
	for _, e := range events {
		go func() {
			if err := s.Emit(ctx, e); err != nil {
				log.Printf("publish %s: %v", e.Kind, err)
			}
		}()
	}
}

// bug: untrackedgo
func (h *Handler) handleStats(w http.ResponseWriter, r *http.Request) {
	stats := map[string]int{}
	go func() {
		addrs, _ := h.res.Resolve(r.Context(), r.Host)
		stats["addrs"] = len(addrs)
	}()
	w.WriteHeader(http.StatusOK)
}

// ---- near-misses ----

// ok: untrackedgo
func ResolveAllWait(ctx context.Context, res Resolver, hosts []string) map[string][]string {
	out := make(map[string][]string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, err := res.Resolve(ctx, h)
			if err != nil {
				return
			}
			mu.Lock()
			out[h] = addrs
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// ok: untrackedgo
func ResolveGroup(ctx context.Context, res Resolver, hosts []string) ([][]string, error) {
	out := make([][]string, len(hosts))
	g, gctx := errgroup.WithContext(ctx)
	for i, h := range hosts {
		g.Go(func() error {
			addrs, err := res.Resolve(gctx, h)
			out[i] = addrs
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// ok: untrackedgo
func (h *Handler) ServeDetached(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithoutCancel(r.Context())
	path := r.URL.Path
	go func() {
		_ = h.sink.Emit(ctx, Event{Kind: "hit", Path: path})
	}()
	w.WriteHeader(http.StatusAccepted)
}

// ok: untrackedgo
func FirstAddrChan(ctx context.Context, res Resolver, host string) (string, error) {
	type result struct {
		addrs []string
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		addrs, err := res.Resolve(ctx, host)
		ch <- result{addrs, err}
	}()
	r := <-ch
	if r.err != nil {
		return "", r.err
	}
	return r.addrs[0], nil
}

// ok: untrackedgo
func ServeUntil(ctx context.Context, srv *http.Server, l net.Listener) error {
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return srv.Serve(l)
}

type Worker struct {
	sink  Sink
	queue chan Event
	done  chan struct{}
	wg    sync.WaitGroup
}

// ok: untrackedgo
func (w *Worker) Start(ctx context.Context) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.done:
				return
			case e := <-w.queue:
				_ = w.sink.Emit(ctx, e)
			}
		}
	}()
}

// ok: untrackedgo
func (w *Worker) Close() error {
	close(w.done)
	w.wg.Wait()
	return nil
}

// ok: untrackedgo
func WatchLoop(ctx context.Context, events <-chan Event, s Sink) {
	go func() {
		for e := range events {
			if err := s.Emit(ctx, e); err != nil {
				log.Printf("emit: %v", err)
			}
		}
	}()
}

// ok: untrackedgo
func Parallel(ctx context.Context, res Resolver, a, b string) (x, y []string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		x, _ = res.Resolve(ctx, a)
	}()
	y, _ = res.Resolve(ctx, b)
	<-done
	return x, y
}

// ok: untrackedgo
func StartServer(srv *http.Server, l net.Listener) {
	go srv.Serve(l)
}

// ok: untrackedgo
func HeartbeatLogger(interval time.Duration) {
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for range t.C {
			log.Print("alive")
		}
	}()
}

// ok: untrackedgo
func EmitAllDeferWait(ctx context.Context, s Sink, events []Event) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, e := range events {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = s.Emit(ctx, e)
		}()
	}
}

// ok: untrackedgo
func (h *Handler) handleSSE(w http.ResponseWriter, r *http.Request) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Write([]byte("data: hello\n\n"))
	}()
	<-done
}

// ok: untrackedgo
func (w *Worker) Enqueue(e Event) {
	go func() {
		select {
		case w.queue <- e:
		case <-w.done:
		}
	}()
}

// ok: untrackedgo
func Shutdown(ctx context.Context, servers []*http.Server) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, srv := range servers {
		g.Go(func() error { return srv.Shutdown(gctx) })
	}
	return g.Wait()
}
