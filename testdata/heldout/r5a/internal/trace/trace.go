// Package trace is a minimal tracing stub in the style of OpenTelemetry: a Tracer starts Spans that
// must be ended exactly once on every path.
package trace

import (
	"context"
	"sync"
	"time"
)

// FinishedSpan is what the tracer exports once a span has been ended.
type FinishedSpan struct {
	Name     string
	Duration time.Duration
	Err      error
	Attrs    map[string]any
}

// Tracer hands out spans and collects the ended ones.
type Tracer struct {
	service  string
	mu       sync.Mutex
	open     int
	finished []FinishedSpan
}

// Span is one timed operation. Spans that are never ended stay open in the tracer forever.
type Span struct {
	tracer *Tracer
	name   string
	start  time.Time
	mu     sync.Mutex
	attrs  map[string]any
	err    error
	ended  bool
}

type spanKey struct{}

// NewTracer returns a tracer for service.
// ok: leaseleak
func NewTracer(service string) *Tracer {
	return &Tracer{service: service}
}

// Start opens a span named name as a child of whatever span ctx carries. The caller owns the span and
// must call End.
// ok: leaseleak
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, *Span) {
	s := &Span{tracer: t, name: name, start: time.Now(), attrs: map[string]any{"service": t.service}}
	if parent := FromContext(ctx); parent != nil {
		s.attrs["parent"] = parent.name
	}
	t.mu.Lock()
	t.open++
	t.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, s), s
}

// Open reports how many spans have been started and not yet ended.
// ok: leaseleak
func (t *Tracer) Open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open
}

// Finished returns a copy of the exported spans.
// ok: leaseleak
func (t *Tracer) Finished() []FinishedSpan {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]FinishedSpan(nil), t.finished...)
}

// FromContext returns the span stored in ctx, if any.
// ok: leaseleak
func FromContext(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// SetAttribute records a key/value pair on the span.
// ok: leaseleak
func (s *Span) SetAttribute(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attrs[key] = v
}

// RecordError marks the span as failed with err.
// ok: leaseleak
func (s *Span) RecordError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// End finishes the span and exports it. Calling End more than once is a no-op.
// ok: leaseleak
func (s *Span) End() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	fs := FinishedSpan{Name: s.name, Duration: time.Since(s.start), Err: s.err, Attrs: s.attrs}
	s.mu.Unlock()

	s.tracer.mu.Lock()
	s.tracer.open--
	s.tracer.finished = append(s.tracer.finished, fs)
	s.tracer.mu.Unlock()
}

// EndWithError records *errp (if non-nil) and ends the span; meant to be deferred as
// defer trace.EndWithError(span, &err).
// ok: leaseleak
func EndWithError(s *Span, errp *error) {
	if errp != nil && *errp != nil {
		s.RecordError(*errp)
	}
	s.End()
}
