package swallow

import (
	"context"
	"errors"
	"log"
)

// save is a thin wrapper: its error carries the store's cancellation.
//
// ok: swallowcancel
func (s *Syncer) save(ctx context.Context, it Item) error {
	return s.store.Put(ctx, it)
}

// Failures (including cancellation) are only counted, and the batch goes
// on and reports success.
//
// bug: swallowcancel
func (s *Syncer) SaveAll(ctx context.Context, items []Item) (failed int, err error) {
	for _, it := range items {
		if err := s.save(ctx, it); err != nil {
			failed++
			continue
		}
	}
	return failed, nil
}

// A labelled break out of the select loop on cancellation, then success.
//
// bug: swallowcancel
func (s *Syncer) Consume(ctx context.Context, in <-chan Item) error {
loop:
	for {
		select {
		case it, ok := <-in:
			if !ok {
				break loop
			}
			if err := s.save(ctx, it); err != nil {
				return err
			}
		case <-ctx.Done():
			break loop
		}
	}
	return nil
}

// A switch that maps cancellation to success.
//
// bug: swallowcancel
func (s *Syncer) Fetch(ctx context.Context, id string) (*Item, error) {
	it, err := s.store.Get(ctx, id)
	switch {
	case err == nil:
		return &it, nil
	case errors.Is(err, errNotFound), errors.Is(err, context.Canceled):
		return nil, nil
	default:
		return nil, err
	}
}

// ok: swallowcancel
func (s *Syncer) SaveAllErrc(ctx context.Context, items []Item, errc chan<- error) {
	for _, it := range items {
		if err := s.save(ctx, it); err != nil {
			errc <- err
			return
		}
	}
}

type tracker struct {
	s       *Syncer
	lastErr error
}

// The error is kept for the caller to inspect.
//
// ok: swallowcancel
func (t *tracker) SaveAll(ctx context.Context, items []Item) {
	for _, it := range items {
		if err := t.s.save(ctx, it); err != nil {
			t.lastErr = err
			return
		}
	}
}

// ok: swallowcancel
func (s *Syncer) ConsumeOK(ctx context.Context, in <-chan Item) error {
	for {
		select {
		case it, ok := <-in:
			if !ok {
				return nil
			}
			if err := s.save(ctx, it); err != nil {
				return err
			}
		case <-ctx.Done():
			log.Print("consume: canceled")
			return context.Cause(ctx)
		}
	}
}
