package swallow

import (
	"context"
	"log"

	"golang.org/x/sync/errgroup"
)

type Cache interface {
	Set(ctx context.Context, key string, val []byte) error
}

// The cache write is best-effort; the store write that follows in the next
// iteration, and the final ctx check, surface cancellation.
//
// ok: swallowcancel
func (s *Syncer) WriteThrough(ctx context.Context, c Cache, items []Item) error {
	for _, it := range items {
		if err := s.store.Put(ctx, it); err != nil {
			return err
		}
		if err := c.Set(ctx, it.ID, it.Body); err != nil {
			log.Printf("cache %s: %v", it.ID, err)
		}
	}
	return ctx.Err()
}

// No error result: a lookup that degrades to a miss.
//
// ok: swallowcancel
func (s *Syncer) Cached(ctx context.Context, id string) ([]byte, bool) {
	it, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, false
	}
	return it.Body, true
}

// Group workers may end quietly: the group's Wait reports the cause.
//
// ok: swallowcancel
func (s *Syncer) Workers(ctx context.Context, in <-chan Item, n int) error {
	g, gctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			for {
				select {
				case <-gctx.Done():
					return nil
				case it, ok := <-in:
					if !ok {
						return nil
					}
					if err := s.store.Put(gctx, it); err != nil {
						return err
					}
				}
			}
		})
	}
	return g.Wait()
}
