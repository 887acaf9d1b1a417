package folded

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Limiter spaces events interval apart.
type Limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

// NewLimiter returns a limiter allowing one event per interval.
// ok: foldedtimeout
func NewLimiter(interval time.Duration) *Limiter {
	return &Limiter{interval: interval}
}

// reserve books n events and returns when they may start. ok is false (and
// nothing is booked) when that time is after ctx's deadline.
// ok: foldedtimeout
func (l *Limiter) reserve(ctx context.Context, n int) (ready time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	ready = l.next
	if ready.Before(now) {
		ready = now
	}
	if dl, has := ctx.Deadline(); has && ready.After(dl) {
		return time.Time{}, false
	}
	l.next = ready.Add(time.Duration(n) * l.interval)
	return ready, true
}

// Wait blocks until n events may start. When they could not start before
// ctx's deadline it fails fast with a freshly formatted error that does not
// wrap context.DeadlineExceeded, so callers that treat deadline misses
// specially (errors.Is) see an unknown failure.
// From: golang/go#54541
// bug: foldedtimeout
func (l *Limiter) Wait(ctx context.Context, n int) error {
	ready, ok := l.reserve(ctx, n)
	if !ok {
		return fmt.Errorf("ratelimit: Wait(n=%d) would exceed context deadline", n)
	}
	t := time.NewTimer(time.Until(ready))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitN is the near-miss of Wait: the fail-fast error keeps its text but
// wraps context.DeadlineExceeded, so errors.Is matches it.
// From: golang/go#54541
// ok: foldedtimeout
func (l *Limiter) WaitN(ctx context.Context, n int) error {
	ready, ok := l.reserve(ctx, n)
	if !ok {
		return fmt.Errorf("ratelimit: Wait(n=%d) would exceed context deadline: %w", n, context.DeadlineExceeded)
	}
	t := time.NewTimer(time.Until(ready))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
