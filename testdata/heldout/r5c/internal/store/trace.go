package store

import (
	"context"
	"sync"
	"time"
)

// Tracer records spans; spans that are never ended stay in its open table.
type Tracer struct {
	mu   sync.Mutex
	open map[*Span]struct{}
	done []*Span
}

// Span is one timed operation.
type Span struct {
	tracer *Tracer
	Name   string
	Start  time.Time
	Dur    time.Duration
	Err    error
}

type spanKey struct{}

// NewTracer returns an empty tracer.
// ok: leaseleak
func NewTracer() *Tracer {
	return &Tracer{open: make(map[*Span]struct{})}
}

// Start opens a span and returns a context carrying it. The caller must End it.
// ok: leaseleak
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, *Span) {
	s := &Span{tracer: t, Name: name, Start: time.Now()}
	t.mu.Lock()
	t.open[s] = struct{}{}
	t.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), s
}

// RecordError attaches err to the span.
// ok: leaseleak
func (s *Span) RecordError(err error) {
	if err != nil {
		s.Err = err
	}
}

// End closes the span and hands it to the exporter list.
// ok: leaseleak
func (s *Span) End() {
	s.Dur = time.Since(s.Start)
	s.tracer.mu.Lock()
	defer s.tracer.mu.Unlock()
	if _, ok := s.tracer.open[s]; ok {
		delete(s.tracer.open, s)
		s.tracer.done = append(s.tracer.done, s)
	}
}

// Open reports how many spans were started but not ended.
// ok: leaseleak
func (t *Tracer) Open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}
