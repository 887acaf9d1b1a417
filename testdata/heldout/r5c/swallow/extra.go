package swallow

import (
	"context"
	"errors"
	"log"

	"heldoutr5c/internal/store"
)

// reportSyncError logs err unless it is a cancellation, and returns it either
// way: only the log line is suppressed, the caller still sees the error.
// ok: swallowcancel
func reportSyncError(logger *log.Logger, shard string, err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, context.Canceled) {
		logger.Printf("sync %s: %v", shard, err)
	}
	return err
}

// SyncAndReport pushes one shard and reports the outcome.
// ok: swallowcancel
func (s *ShardSyncer) SyncAndReport(ctx context.Context, logger *log.Logger, shard string) error {
	return reportSyncError(logger, shard, s.push(ctx, shard))
}

var errTailerClosed = errors.New("tailer closed")

// Tailer copies records from the store into a sink until closed.
type Tailer struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan error
}

// StartTailer starts copying records under prefix into sink. The goroutine's
// result is collected by Close.
// ok: swallowcancel
func StartTailer(ctx context.Context, db *store.DB, prefix string, sink func(store.Record)) *Tailer {
	ctx, cancel := context.WithCancelCause(ctx)
	t := &Tailer{ctx: ctx, cancel: cancel, done: make(chan error, 1)}
	go func() {
		t.done <- tail(ctx, db, prefix, sink)
	}()
	return t
}

// tail copies records until the scan ends.
// ok: swallowcancel
func tail(ctx context.Context, db *store.DB, prefix string, sink func(store.Record)) error {
	for rec, err := range db.Scan(ctx, prefix) {
		if err != nil {
			return err
		}
		sink(rec)
	}
	return nil
}

// Close stops the tailer and waits for it. A context.Canceled result whose
// cause is Close's own errTailerClosed is the cancellation Close requested,
// so it is reported as a clean stop; a cancellation or deadline from the
// parent context is returned to the caller.
// ok: swallowcancel
func (t *Tailer) Close() error {
	t.cancel(errTailerClosed)
	err := <-t.done
	if errors.Is(err, context.Canceled) && errors.Is(context.Cause(t.ctx), errTailerClosed) {
		return nil
	}
	return err
}
