package untracked

import (
	"context"
	"log"
	"net/http"
	"sync"
)

type Backup struct {
	sink Sink
}

// Modelled on a backup handler that started its state reporter with the
// request context and returned immediately.
//
// bug: untrackedgo
func (b *Backup) handleStart(w http.ResponseWriter, r *http.Request) {
	go func() {
		for _, stage := range []string{"snapshot", "upload", "verify"} {
			if err := b.sink.Emit(r.Context(), Event{Kind: "progress", Path: stage}); err != nil {
				return
			}
		}
	}()
	w.WriteHeader(http.StatusAccepted)
}

// A parallel map that forgets to wait when one input is invalid.
//
// bug: untrackedgo
func Sizes(ctx context.Context, res Resolver, hosts []string) (map[string]int, bool) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sizes := map[string]int{}
	for _, h := range hosts {
		if h == "" {
			return nil, false
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, _ := res.Resolve(ctx, h)
			mu.Lock()
			sizes[h] = len(addrs)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return sizes, true
}

// Refresh fires a cache refresh per key with the caller's context and
// returns before any has finished.
//
// bug: untrackedgo
func Refresh(ctx context.Context, res Resolver, keys []string) {
	for _, k := range keys {
		go func() {
			if _, err := res.Resolve(ctx, k); err != nil {
				log.Printf("refresh %s: %v", k, err)
			}
		}()
	}
}

// ok: untrackedgo
func (b *Backup) handleStartOK(w http.ResponseWriter, r *http.Request) {
	ctx := context.WithoutCancel(r.Context())
	go func() {
		for _, stage := range []string{"snapshot", "upload", "verify"} {
			if err := b.sink.Emit(ctx, Event{Kind: "progress", Path: stage}); err != nil {
				return
			}
		}
	}()
	w.WriteHeader(http.StatusAccepted)
}

// ok: untrackedgo
func SizesOK(ctx context.Context, res Resolver, hosts []string) (map[string]int, bool) {
	for _, h := range hosts {
		if h == "" {
			return nil, false
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	sizes := map[string]int{}
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addrs, _ := res.Resolve(ctx, h)
			mu.Lock()
			sizes[h] = len(addrs)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return sizes, true
}

// A goroutine that only watches the context to close a connection-like
// resource.
//
// ok: untrackedgo
func CloseOnCancel(ctx context.Context, closer interface{ Close() error }) {
	go func() {
		<-ctx.Done()
		closer.Close()
	}()
}
