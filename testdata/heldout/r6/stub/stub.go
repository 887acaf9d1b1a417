// Package stub holds small stand-ins for third-party APIs (a tracer and a
// weighted semaphore) used by the batch packages. Every function here is
// correct.
package stub

import (
	"context"
	"sync"
	"time"
)

// Tracer keeps every started span in an in-memory table until it is ended,
// like SDKs that buffer open spans.
type Tracer struct {
	mu   sync.Mutex
	open map[*Span]string
}

// Span is one traced operation.
type Span struct {
	t    *Tracer
	name string
	err  error
}

// NewTracer returns an empty tracer.
// ok: leaseleak
func NewTracer() *Tracer {
	return &Tracer{open: make(map[*Span]string)}
}

// Start opens a span; the caller must call End on it.
// ok: leaseleak
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, *Span) {
	s := &Span{t: t, name: name}
	t.mu.Lock()
	t.open[s] = name
	t.mu.Unlock()
	return ctx, s
}

// Open reports how many spans have not been ended.
// ok: leaseleak
func (t *Tracer) Open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

// End closes the span and drops it from the tracer's table.
// ok: leaseleak
func (s *Span) End() {
	s.t.mu.Lock()
	delete(s.t.open, s)
	s.t.mu.Unlock()
}

// RecordError attaches err to the span.
// ok: leaseleak
func (s *Span) RecordError(err error) {
	s.err = err
}

// Sem is a counting semaphore.
type Sem struct {
	ch chan struct{}
}

// NewSem returns a semaphore with n slots.
// ok: leaseleak
func NewSem(n int) *Sem {
	return &Sem{ch: make(chan struct{}, n)}
}

// Acquire takes a slot or returns ctx.Err() if ctx is done first.
// ok: leaseleak
func (s *Sem) Acquire(ctx context.Context) error {
	select {
	case s.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release gives a slot back.
// ok: leaseleak
func (s *Sem) Release() {
	<-s.ch
}

// WithBudget derives a context bounded by d; the caller owns the returned
// cancel function.
// ok: leaseleak
func WithBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
