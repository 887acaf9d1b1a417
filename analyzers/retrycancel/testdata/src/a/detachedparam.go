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
