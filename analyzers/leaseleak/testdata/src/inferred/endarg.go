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

// A weighted semaphore's Release(n) gives back part of a count: the
// semaphore is not a lease of this function.
type weighted struct{}

func newWeighted(n int64) *weighted { return &weighted{} }
func (*weighted) Acquire(n int64)   {}
func (*weighted) Release(n int64)   {}
func useWeighted(fail bool) error {
	w := newWeighted(4)
	w.Acquire(1)
	if fail {
		return fmt.Errorf("failed")
	}
	w.Release(1)
	return nil
}

// An upload whose failure paths call Abort(ctx) rather than Close(ctx).
type chunkWriter interface {
	Close(ctx context.Context) error
	Abort(ctx context.Context) error
}

func openChunks(ctx context.Context) (chunkWriter, error) { return nil, nil }

func upload(ctx context.Context, fail bool) (err error) {
	w, err := openChunks(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = w.Abort(ctx)
		}
	}()
	if fail {
		return fmt.Errorf("failed")
	}
	return w.Close(ctx)
}
