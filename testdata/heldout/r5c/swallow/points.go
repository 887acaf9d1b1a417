package swallow

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"heldoutr5c/internal/store"
)

// Point is one buffered measurement.
type Point struct {
	Key   string
	Value []byte
}

// PointWriter buffers points and flushes them to the store.
type PointWriter struct {
	db      *store.DB
	mu      sync.Mutex
	pending []Point
}

// Add buffers a point.
// ok: swallowcancel
func (w *PointWriter) Add(p Point) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p)
}

// Flush writes the buffered points. A deferred closure rewrites a
// context.Canceled result to nil ("the client went away"), so Close, which
// discards the buffer after a nil Flush, throws away points that were never
// written.
// From: runreveal/kawa#37
// bug: swallowcancel
func (w *PointWriter) Flush(ctx context.Context) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) {
			err = nil
		}
	}()
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.pending) > 0 {
		p := w.pending[0]
		if _, err := w.db.Put(ctx, p.Key, p.Value); err != nil {
			return fmt.Errorf("flush %s: %w", p.Key, err)
		}
		w.pending = w.pending[1:]
	}
	return nil
}

// FlushAll is the near-miss of Flush: its deferred closure only annotates a
// cancellation with the number of points still pending and keeps it in the
// chain, so the caller does not discard them.
// From: runreveal/kawa#37
// ok: swallowcancel
func (w *PointWriter) FlushAll(ctx context.Context) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("flush interrupted, %d points pending: %w", len(w.pending), err)
		}
	}()
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.pending) > 0 {
		p := w.pending[0]
		if _, err := w.db.Put(ctx, p.Key, p.Value); err != nil {
			return fmt.Errorf("flush %s: %w", p.Key, err)
		}
		w.pending = w.pending[1:]
	}
	return nil
}

// Close flushes and then drops the buffer.
// ok: swallowcancel
func (w *PointWriter) Close(ctx context.Context) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = nil
	return nil
}
