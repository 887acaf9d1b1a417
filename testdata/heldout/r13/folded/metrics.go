package folded

import (
	"context"
	"fmt"
)

// OLAP runs aggregation queries.
type OLAP interface {
	Aggregate(ctx context.Context, view string, measures []string) ([]float64, error)
}

// MetricsServer serves metrics view queries. An interceptor maps returned
// errors to status codes, treating context errors specially.
type MetricsServer struct {
	olap OLAP
}

// Aggregate runs the query. The error is coerced into an Internal status
// with its text, so the interceptor never sees context.Canceled and logs
// an abandoned request as a server fault.
// From: rilldata/rill#6014
// bug: foldedtimeout
func (s *MetricsServer) Aggregate(ctx context.Context, view string, measures []string) ([]float64, error) {
	if len(measures) == 0 {
		return nil, &StatusError{Code: CodeInternal, Message: "no measures"}
	}
	vals, err := s.olap.Aggregate(ctx, view, measures)
	if err != nil {
		return nil, &StatusError{Code: CodeInternal, Message: err.Error()}
	}
	return vals, nil
}

// AggregateNearMiss returns the error itself and lets the interceptor map it.
// ok: foldedtimeout
func (s *MetricsServer) AggregateNearMiss(ctx context.Context, view string, measures []string) ([]float64, error) {
	if len(measures) == 0 {
		return nil, &StatusError{Code: CodeInternal, Message: "no measures"}
	}
	vals, err := s.olap.Aggregate(ctx, view, measures)
	if err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", view, err)
	}
	return vals, nil
}
