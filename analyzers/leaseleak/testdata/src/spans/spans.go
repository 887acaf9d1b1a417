package spans

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

func work(ctx context.Context) error { return nil }

func handle(ctx context.Context, tr trace.Tracer) error {
	ctx, span := tr.Start(ctx, "handle") // want `the span span from \(trace.Tracer\).Start is not ended on the path through the return when ctx.Err\(\) != nil, so the span is never exported`
	if ctx.Err() != nil {
		return ctx.Err()
	}
	err := work(ctx)
	span.End()
	return err
}

// ---- near misses ----

func good(ctx context.Context, tr trace.Tracer) error {
	ctx, span := tr.Start(ctx, "good")
	defer span.End()
	return work(ctx)
}

// The span from the context is borrowed, not owned.
func borrowed(ctx context.Context) {
	span := trace.SpanFromContext(ctx)
	span.SetName("x")
}

// Returned to the caller.
func start(ctx context.Context, tr trace.Tracer) (context.Context, trace.Span) {
	return tr.Start(ctx, "start")
}
