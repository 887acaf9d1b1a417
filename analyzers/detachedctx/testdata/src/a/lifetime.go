package a

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Recommender keeps the application's lifetime context for background
// work; shutdown cancels it.
type Recommender struct {
	appCtx context.Context
	wg     sync.WaitGroup
	search func(ctx context.Context, q string) error
}

// HandleRefresh starts a search meant to outlive the request, on a fresh
// root: shutting the application down does not stop it.
func (h *Recommender) HandleRefresh(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // want `context.Background\(\) in the goroutine started by HandleRefresh cuts its work under h.search off from h.appCtx, the context h keeps for its lifetime: when h.appCtx is canceled at shutdown, the goroutine keeps running; derive its context from h.appCtx`
		defer cancel()
		_ = h.search(ctx, q)
	}()
	w.WriteHeader(http.StatusAccepted)
}

// HandleRefreshApp derives the search from the lifetime context.
func (h *Recommender) HandleRefreshApp(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(h.appCtx, 5*time.Minute)
		defer cancel()
		_ = h.search(ctx, q)
	}()
	w.WriteHeader(http.StatusAccepted)
}

// Close flushes on a fresh context in a goroutine of the shutdown itself:
// the lifetime context is the one being torn down.
func (h *Recommender) Close() {
	go func() {
		_ = h.search(context.Background(), "flush")
	}()
	h.wg.Wait()
}

// Searcher holds no context: a goroutine's root is its own business.
type Searcher struct {
	search func(ctx context.Context, q string) error
}

func (s *Searcher) Refresh(q string) {
	go func() {
		_ = s.search(context.Background(), q)
	}()
}
