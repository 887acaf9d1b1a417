package swallow

import (
	"context"
	"errors"
	"time"
)

// WriteRequest is one map leaf update.
type WriteRequest struct {
	MapID int64
	Index []byte
	Value []byte
}

// MapAPI is the map server RPC surface.
type MapAPI interface {
	WriteLeaves(ctx context.Context, req WriteRequest) error
}

// MapWriter retries writes within a time budget.
type MapWriter struct {
	api            MapAPI
	budget         time.Duration
	attemptTimeout time.Duration
	backoff        time.Duration
}

// Write retries until the budget runs out. Attempts that time out are
// retried without being recorded, so when every attempt times out the
// function reports success.
// From: google/trillian#1784
// bug: swallowcancel
func (w *MapWriter) Write(ctx context.Context, req WriteRequest) error {
	deadline := time.Now().Add(w.budget)
	var firstErr error
	for time.Now().Before(deadline) {
		actx, cancel := context.WithTimeout(ctx, w.attemptTimeout)
		err := w.api.WriteLeaves(actx, req)
		cancel()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded):
			// the attempt timed out; try again
		case firstErr == nil:
			firstErr = err
		}
		if err := sleepCtx(ctx, w.backoff); err != nil {
			return err
		}
	}
	return firstErr
}

// WriteNearMiss falls back to the last attempt's error, so a run of
// timeouts surfaces as DeadlineExceeded.
// ok: swallowcancel
func (w *MapWriter) WriteNearMiss(ctx context.Context, req WriteRequest) error {
	deadline := time.Now().Add(w.budget)
	var firstErr error
	lastErr := errBudgetExhausted
	for time.Now().Before(deadline) {
		actx, cancel := context.WithTimeout(ctx, w.attemptTimeout)
		err := w.api.WriteLeaves(actx, req)
		cancel()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, context.DeadlineExceeded):
			// the attempt timed out; try again
		case firstErr == nil:
			firstErr = err
		}
		lastErr = err
		if err := sleepCtx(ctx, w.backoff); err != nil {
			return err
		}
	}
	if firstErr == nil {
		return lastErr
	}
	return firstErr
}
