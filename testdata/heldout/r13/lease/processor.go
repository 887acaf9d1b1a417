package lease

import (
	"context"
	"fmt"
	"time"
)

// Dispatcher ships a batch of impression events.
type Dispatcher interface {
	Dispatch(ctx context.Context, batch [][]byte) error
}

// BatchProcessor buffers events and flushes them periodically.
type BatchProcessor struct {
	dispatcher    Dispatcher
	flushInterval time.Duration
	maxBatch      int
	events        chan []byte
}

// flush dispatches the batch if it is non-empty.
// ok: leaseleak
func (p *BatchProcessor) flush(ctx context.Context, batch [][]byte) error {
	if len(batch) == 0 {
		return nil
	}
	if err := p.dispatcher.Dispatch(ctx, batch); err != nil {
		return fmt.Errorf("dispatch %d events: %w", len(batch), err)
	}
	return nil
}

// Run batches events until ctx ends. The flush ticker is never stopped,
// so every processor that is started and shut down leaks one.
// From: optimizely/go-sdk#375
// bug: leaseleak
func (p *BatchProcessor) Run(ctx context.Context) error {
	ticker := time.NewTicker(p.flushInterval)
	var batch [][]byte
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-p.events:
			batch = append(batch, ev)
			if len(batch) < p.maxBatch {
				continue
			}
		case <-ticker.C:
		}
		if err := p.flush(ctx, batch); err != nil {
			return err
		}
		batch = batch[:0]
	}
}

// RunNearMiss stops the ticker on every return.
// ok: leaseleak
func (p *BatchProcessor) RunNearMiss(ctx context.Context) error {
	ticker := time.NewTicker(p.flushInterval)
	defer ticker.Stop()
	var batch [][]byte
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-p.events:
			batch = append(batch, ev)
			if len(batch) < p.maxBatch {
				continue
			}
		case <-ticker.C:
		}
		if err := p.flush(ctx, batch); err != nil {
			return err
		}
		batch = batch[:0]
	}
}
