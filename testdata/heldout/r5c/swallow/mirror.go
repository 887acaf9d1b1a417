package swallow

import (
	"context"
	"errors"
	"io"

	"golang.org/x/sync/errgroup"

	"heldoutr5c/internal/store"
)

// BatchSource yields batches of records; it returns io.EOF when exhausted and
// ctx.Err() when its context ends.
type BatchSource interface {
	NextBatch(ctx context.Context) ([]store.Record, error)
}

// Index applies batches locally (no I/O, no context).
type Index interface {
	Apply(batch []store.Record)
}

// Mirror copies a source into a local index.
type Mirror struct {
	src BatchSource
	dst Index
}

// Run copies batches with one pulling and one applying goroutine. When the
// group context ends while the puller is blocked handing over a batch, the
// puller returns nil, the applier drains and returns nil, and Wait reports
// success, so the caller records a partial mirror as complete.
// From: PeerDB-io/peerdb#1410
// bug: swallowcancel
func (m *Mirror) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []store.Record)
	g.Go(func() error {
		defer close(batches)
		for {
			batch, err := m.src.NextBatch(gctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			select {
			case batches <- batch:
			case <-gctx.Done():
				return nil
			}
		}
	})
	g.Go(func() error {
		for batch := range batches {
			m.dst.Apply(batch)
		}
		return nil
	})
	return g.Wait()
}

// RunOnce is the near-miss of Run: when the group context ends during the
// hand-over the puller returns gctx.Err(), so Wait reports the cancellation.
// From: PeerDB-io/peerdb#1410
// ok: swallowcancel
func (m *Mirror) RunOnce(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []store.Record)
	g.Go(func() error {
		defer close(batches)
		for {
			batch, err := m.src.NextBatch(gctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			select {
			case batches <- batch:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
	})
	g.Go(func() error {
		for batch := range batches {
			m.dst.Apply(batch)
		}
		return nil
	})
	return g.Wait()
}
