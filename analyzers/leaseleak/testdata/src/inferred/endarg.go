package inferred

import (
	"context"
	"fmt"
)

// span is a tracer's span whose End takes the operation's error.
type span interface{ End(err error) }

type tracer interface {
	Start(ctx context.Context, name string) (context.Context, span)
}

type reader struct {
	tr        tracer
	authorize func(ctx context.Context) error
	read      func(ctx context.Context) ([]byte, error)
}

func (r *reader) Read(ctx context.Context) ([]byte, error) {
	ctx, sp := r.tr.Start(ctx, "read") // want `span sp from \(inferred.tracer\).Start is not ended on the path through the return when err != nil`
	if err := r.authorize(ctx); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	b, err := r.read(ctx)
	sp.End(err)
	return b, err
}

// Near miss: ended on every path by a deferred closure.
func (r *reader) ReadDeferred(ctx context.Context) (b []byte, err error) {
	ctx, sp := r.tr.Start(ctx, "read")
	defer func() { sp.End(err) }()
	if err := r.authorize(ctx); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return r.read(ctx)
}

// Near miss: never ended here, so not treated as a lease of this function.
func (r *reader) Peek(ctx context.Context) context.Context {
	ctx, _ = r.tr.Start(ctx, "peek")
	return ctx
}
