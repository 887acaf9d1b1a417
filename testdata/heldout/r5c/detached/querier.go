package detached

import "context"

// Sample is one data point.
type Sample struct {
	Metric string
	T      int64
	V      float64
}

// SampleReader runs SQL for one metric.
type SampleReader interface {
	Samples(ctx context.Context, metric string, mint, maxt int64) ([]Sample, error)
}

// Querier answers PromQL selects from SQL.
type Querier struct {
	conn SampleReader
}

// Select fetches samples for each metric. The per-metric fetch closure
// queries with context.Background() instead of the ctx Select was given, so
// when the HTTP query times out the database keeps executing every per-metric
// query.
// From: timescale/promscale#1610
// bug: detachedctx
func (q *Querier) Select(ctx context.Context, mint, maxt int64, metrics []string) ([]Sample, error) {
	fetch := func(metric string) ([]Sample, error) {
		return q.conn.Samples(context.Background(), metric, mint, maxt)
	}
	var out []Sample
	for _, m := range metrics {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := fetch(m)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// SelectSeries is the near-miss of Select: the closure captures and passes
// ctx.
// From: timescale/promscale#1610
// ok: detachedctx
func (q *Querier) SelectSeries(ctx context.Context, mint, maxt int64, metrics []string) ([]Sample, error) {
	fetch := func(metric string) ([]Sample, error) {
		return q.conn.Samples(ctx, metric, mint, maxt)
	}
	var out []Sample
	for _, m := range metrics {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := fetch(m)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}
