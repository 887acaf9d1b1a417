package lease

import (
	"context"
	"errors"
	"time"
)

var errInsufficientFunds = errors.New("insufficient funds")

// TokenSource locks tokens whose sum covers an amount.
type TokenSource[T any] interface {
	TryLock(ctx context.Context, amount uint64) ([]T, error)
}

// StubbornSelector retries token selection with a backoff.
type StubbornSelector[T any] struct {
	source     TokenSource[T]
	backoff    time.Duration
	maxRetries int
}

// Select retries while funds are locked by others. The backoff timer is
// left running when ctx ends first.
// From: LFDT-Panurus/panurus#2125
// bug: leaseleak
func (s *StubbornSelector[T]) Select(ctx context.Context, amount uint64) ([]T, error) {
	for attempt := 0; ; attempt++ {
		toks, err := s.source.TryLock(ctx, amount)
		if err == nil {
			return toks, nil
		}
		if !errors.Is(err, errInsufficientFunds) || attempt >= s.maxRetries {
			return nil, err
		}
		timer := time.NewTimer(s.backoff)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// SelectNearMiss stops the timer before returning on cancellation.
// ok: leaseleak
func (s *StubbornSelector[T]) SelectNearMiss(ctx context.Context, amount uint64) ([]T, error) {
	for attempt := 0; ; attempt++ {
		toks, err := s.source.TryLock(ctx, amount)
		if err == nil {
			return toks, nil
		}
		if !errors.Is(err, errInsufficientFunds) || attempt >= s.maxRetries {
			return nil, err
		}
		timer := time.NewTimer(s.backoff)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}
