// Package swallow holds swallowcancel cases: cancellation errors dropped or
// turned into success, shaped after reports such as batch jobs that report
// success after a canceled context, controllers that log and continue, and
// `case <-ctx.Done(): return nil` in pipelines.
package swallow

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"golang.org/x/sync/errgroup"
)

type Item struct {
	ID   string
	Body []byte
}

type Store interface {
	Put(ctx context.Context, it Item) error
	Get(ctx context.Context, id string) (Item, error)
	Delete(ctx context.Context, id string) error
	List(ctx context.Context, prefix string) ([]Item, error)
	Close() error
}

type Indexer interface {
	Index(ctx context.Context, it Item) error
	Flush(ctx context.Context) error
}

type Syncer struct {
	store Store
	idx   Indexer
	log   *slog.Logger
}

// bug: swallowcancel
func (s *Syncer) SyncAll(ctx context.Context, items []Item) error {
	for _, it := range items {
		if err := s.store.Put(ctx, it); err != nil {
			log.Printf("put %s: %v", it.ID, err)
		}
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Reindex(ctx context.Context, prefix string) error {
	items, err := s.store.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, it := range items {
		_ = s.idx.Index(ctx, it)
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Prune(ctx context.Context, ids []string) (int, error) {
	n := 0
	for _, id := range ids {
		if err := s.store.Delete(ctx, id); err != nil {
			if errors.Is(err, context.Canceled) {
				continue
			}
			return n, err
		}
		n++
	}
	return n, nil
}

// bug: swallowcancel
func (s *Syncer) FlushIndex(ctx context.Context) error {
	if err := s.idx.Flush(ctx); err != nil {
		s.log.Warn("flush failed", "err", err)
		return nil
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Pump(ctx context.Context, in <-chan Item) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case it := <-in:
			if err := s.store.Put(ctx, it); err != nil {
				return err
			}
		}
	}
}

// bug: swallowcancel
func (s *Syncer) Lookup(ctx context.Context, id string) (Item, error) {
	it, err := s.store.Get(ctx, id)
	if errors.Is(err, context.Canceled) {
		return Item{}, nil
	}
	return it, err
}

// bug: swallowcancel
func (s *Syncer) Mirror(ctx context.Context, dst Store, ids []string) error {
	for _, id := range ids {
		it, _ := s.store.Get(ctx, id)
		if err := dst.Put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Touch(ctx context.Context, it Item) error {
	s.store.Put(ctx, it)
	s.log.Info("touched", "id", it.ID)
	return nil
}

type Fetcher struct {
	client *http.Client
}

// bug: swallowcancel
func (f *Fetcher) Warm(ctx context.Context, urls []string) error {
	for _, u := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		resp, err := f.client.Do(req)
		if err != nil {
			log.Printf("warm %s: %v", u, err)
			continue
		}
		resp.Body.Close()
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Drain(ctx context.Context, q <-chan Item) error {
	for {
		select {
		case it, ok := <-q:
			if !ok {
				return nil
			}
			if err := s.idx.Index(ctx, it); err != nil {
				return fmt.Errorf("index %s: %w", it.ID, err)
			}
		case <-ctx.Done():
			s.log.Info("drain stopped")
			return nil
		}
	}
}

// bug: swallowcancel
func (s *Syncer) Checkpoint(ctx context.Context, it Item) error {
	if ctx.Err() != nil {
		return nil
	}
	return s.store.Put(ctx, it)
}

// bug: swallowcancel
func (s *Syncer) Copy(ctx context.Context, ids []string) (copied []string, err error) {
	for _, id := range ids {
		it, err := s.store.Get(ctx, id)
		if err != nil {
			s.log.Error("get", "id", id, "err", err)
			continue
		}
		copied = append(copied, it.ID)
	}
	return copied, nil
}

// bug: swallowcancel
func (s *Syncer) Refresh(ctx context.Context, id string) error {
	it, err := s.store.Get(ctx, id)
	if err != nil {
		log.Printf("refresh %s: %v", id, err)
		return nil
	}
	_ = it
	return nil
}

// bug: swallowcancel
func (s *Syncer) Apply(ctx context.Context, batch map[string]Item) error {
	for id, it := range batch {
		if err := s.store.Put(ctx, it); err != nil {
			s.log.Warn("apply", "id", id, "err", err)
		}
	}
	return nil
}

// bug: swallowcancel
func (s *Syncer) Evict(ctx context.Context, ids []string) error {
	for _, id := range ids {
		s.store.Delete(ctx, id)
	}
	return nil
}

// ---- near-misses ----

// ok: swallowcancel
func (s *Syncer) SyncAllChecked(ctx context.Context, items []Item) error {
	for _, it := range items {
		if err := s.store.Put(ctx, it); err != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			log.Printf("put %s: %v", it.ID, err)
		}
	}
	return nil
}

// ok: swallowcancel
func (s *Syncer) SyncAllJoined(ctx context.Context, items []Item) error {
	var errs []error
	for _, it := range items {
		if err := s.store.Put(ctx, it); err != nil {
			errs = append(errs, fmt.Errorf("put %s: %w", it.ID, err))
		}
	}
	return errors.Join(errs...)
}

// ok: swallowcancel
func (s *Syncer) FanOut(ctx context.Context, items []Item) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, it := range items {
		g.Go(func() error {
			return s.idx.Index(gctx, it)
		})
	}
	return g.Wait()
}

// Run pumps items into the store until ctx is canceled; it returns nil when
// ctx is canceled.
//
// ok: swallowcancel
func (s *Syncer) Run(ctx context.Context, in <-chan Item) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case it := <-in:
			if err := s.store.Put(ctx, it); err != nil {
				return err
			}
		}
	}
}

// ok: swallowcancel
func (s *Syncer) PumpErr(ctx context.Context, in <-chan Item) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case it := <-in:
			if err := s.store.Put(ctx, it); err != nil {
				return err
			}
		}
	}
}

// ok: swallowcancel
func (s *Syncer) Exists(ctx context.Context, id string) (bool, error) {
	_, err := s.store.Get(ctx, id)
	if errors.Is(err, errNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

var errNotFound = errors.New("not found")

// ok: swallowcancel
func (s *Syncer) Shutdown(ctx context.Context) error {
	_ = s.store.Close()
	return s.idx.Flush(ctx)
}

// ok: swallowcancel
func (s *Syncer) BestEffortPrefetch(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if _, err := s.store.Get(ctx, id); err != nil {
			return fmt.Errorf("prefetch %s: %w", id, err)
		}
	}
	return nil
}

// ok: swallowcancel
func (s *Syncer) Upsert(ctx context.Context, it Item) error {
	if err := s.store.Delete(ctx, it.ID); err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	return s.store.Put(ctx, it)
}

// ok: swallowcancel
func (s *Syncer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	it, err := s.store.Get(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write(it.Body)
}

// ok: swallowcancel
func (s *Syncer) MirrorChecked(ctx context.Context, dst Store, ids []string) error {
	for _, id := range ids {
		it, err := s.store.Get(ctx, id)
		if err != nil {
			return err
		}
		if err := dst.Put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// ok: swallowcancel
func (s *Syncer) TouchLogged(ctx context.Context, it Item) error {
	if err := s.store.Put(ctx, it); err != nil {
		s.log.Warn("touch", "err", err)
		return err
	}
	return nil
}

// ok: swallowcancel
func (s *Syncer) SyncThenCheck(ctx context.Context, items []Item) error {
	for _, it := range items {
		if err := s.store.Put(ctx, it); err != nil {
			log.Printf("put %s: %v", it.ID, err)
		}
	}
	return ctx.Err()
}

// ok: swallowcancel
func (s *Syncer) Collect(ctx context.Context, ids []string) ([]Item, error) {
	out := make([]Item, 0, len(ids))
	for _, id := range ids {
		it, err := s.store.Get(ctx, id)
		switch {
		case errors.Is(err, errNotFound):
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// ok: swallowcancel
func (s *Syncer) Stage(ctx context.Context, it Item) error {
	if err := s.idx.Index(ctx, it); err != nil {
		s.log.Warn("index failed, storing anyway", "err", err)
	}
	return s.store.Put(ctx, it)
}
