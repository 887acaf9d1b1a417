package folded

import (
	"context"
	"fmt"
)

// Fetcher reads a batch of series for a query.
type Fetcher struct {
	reader SeriesReader
}

// FetchAll reads each series in the batch. Failures are annotated with
// %v, so callers can no longer tell a query deadline from a storage error.
// From: m3db/m3x#94
// bug: foldedtimeout
func (f *Fetcher) FetchAll(ctx context.Context, ids []SeriesID) (map[SeriesID][]Datapoint, error) {
	out := make(map[SeriesID][]Datapoint, len(ids))
	for id, err := range f.reader.ReadBatch(ctx, ids) {
		if err != nil {
			return nil, fmt.Errorf("fetch series %s: %v", id, err)
		}
		out[id] = f.reader.Points(id)
	}
	return out, nil
}

// FetchAllNearMiss wraps with %w.
// ok: foldedtimeout
func (f *Fetcher) FetchAllNearMiss(ctx context.Context, ids []SeriesID) (map[SeriesID][]Datapoint, error) {
	out := make(map[SeriesID][]Datapoint, len(ids))
	for id, err := range f.reader.ReadBatch(ctx, ids) {
		if err != nil {
			return nil, fmt.Errorf("fetch series %s: %w", id, err)
		}
		out[id] = f.reader.Points(id)
	}
	return out, nil
}
