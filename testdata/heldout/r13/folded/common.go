// Package folded holds held-out cases for the foldedtimeout check.
package folded

import (
	"context"
	"errors"
	"iter"
)

// SeriesID identifies a time series.
type SeriesID string

// Datapoint is one sample.
type Datapoint struct {
	TimestampNanos int64
	Value          float64
}

// SeriesReader reads series from a storage node.
type SeriesReader interface {
	ReadBatch(ctx context.Context, ids []SeriesID) iter.Seq2[SeriesID, error]
	Points(id SeriesID) []Datapoint
}

// ErrUnavailable is the domain error for a dependency that cannot serve.
var ErrUnavailable = errors.New("service unavailable")

// ErrRequestTimedOut is the RPC client's timeout error.
var ErrRequestTimedOut = errors.New("request timed out")
