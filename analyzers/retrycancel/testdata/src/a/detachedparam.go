package a

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"
)

type spanKey struct{}

func withSpan(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, spanKey{}, name)
}

func emit(ctx context.Context, name string) error { return ctx.Err() }

// Every caller passes a root that only carries values: nothing can end
// the context these loops are given.
func simulateTrace(n int, pause time.Duration) {
	ctx := withSpan(context.Background(), "root")
	simulateChildren(ctx, n, pause)
}

func simulateChildren(ctx context.Context, n int, pause time.Duration) {
	for i := 0; i < n; i++ {
		_ = emit(ctx, "child")
		time.Sleep(pause)
	}
}

// Near miss: a caller passes its own context, which can end.
func replay(ctx context.Context, n int, pause time.Duration) {
	replayChildren(ctx, n, pause)
}

func replayChildren(ctx context.Context, n int, pause time.Duration) {
	for i := 0; i < n; i++ {
		_ = emit(ctx, "child")
		time.Sleep(pause) // want `time.Sleep ignores ctx`
	}
}

// A span started on a fresh root adds values only (knowledge:
// trace.Tracer.Start).
func simulateSpans(tr trace.Tracer, n int, pause time.Duration) {
	ctx, span := tr.Start(context.Background(), "root")
	defer span.End()
	simulateChildren(ctx, n, pause)
}

type generator struct {
	children int
	pause    time.Duration
}

// The root reassigned with a span of its own, and the loop in a method
// that only this package calls directly (no interface names it).
func (g *generator) simulateOne(tr trace.Tracer) {
	ctx := context.Background()
	ctx, span := tr.Start(ctx, "root")
	defer span.End()
	g.simulateChildren(ctx)
}

func (g *generator) simulateChildren(ctx context.Context) {
	for i := 0; i < g.children; i++ {
		_ = emit(ctx, "child")
		time.Sleep(g.pause)
	}
}

type replayer interface{ replayChildren(ctx context.Context) }

// Near miss: a method an interface of the package names may be called
// with any context.
func (g *generator) replayChildren(ctx context.Context) {
	for i := 0; i < g.children; i++ {
		_ = emit(ctx, "child")
		time.Sleep(g.pause) // want `time.Sleep ignores ctx`
	}
}

func (g *generator) replayOne(tr trace.Tracer) {
	ctx, span := tr.Start(context.Background(), "root")
	defer span.End()
	g.replayChildren(ctx)
}
