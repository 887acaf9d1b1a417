// Package trace is a stub of go.opencensus.io/trace.
package trace

import "context"

type Span struct{}

func (s *Span) End() {}

func StartSpan(ctx context.Context, name string) (context.Context, *Span) { return ctx, nil }
