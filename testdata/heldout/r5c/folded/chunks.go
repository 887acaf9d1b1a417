package folded

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// ErrProcessingFatal marks failures that abort the whole scan.
var ErrProcessingFatal = errors.New("fatal processing error")

// sendChunk hands data to out unless ctx ends first.
// ok: foldedtimeout
func sendChunk(ctx context.Context, out chan<- []byte, data []byte) error {
	select {
	case out <- data:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ChunkHandler splits files into chunks for the detectors.
type ChunkHandler struct {
	chunkSize int
}

// HandleFile reads r in chunks and forwards them. A failed hand-over is
// wrapped as "%w: ...: %v": the fatal sentinel survives but the context error
// is flattened to text, so the timeout metric, which counts
// errors.Is(err, context.DeadlineExceeded), misses these failures.
// From: trufflesecurity/trufflehog#4930
// bug: foldedtimeout
func (h *ChunkHandler) HandleFile(ctx context.Context, r io.Reader, out chan<- []byte) error {
	buf := make([]byte, h.chunkSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			data := append([]byte(nil), buf[:n]...)
			if werr := sendChunk(ctx, out, data); werr != nil {
				return fmt.Errorf("%w: error writing to data channel: %v", ErrProcessingFatal, werr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading chunk: %w", err)
		}
	}
}

// HandleArchive is the near-miss of HandleFile: both the sentinel and the
// hand-over error are wrapped with %w, so the context error stays matchable.
// From: trufflesecurity/trufflehog#4930
// ok: foldedtimeout
func (h *ChunkHandler) HandleArchive(ctx context.Context, r io.Reader, out chan<- []byte) error {
	buf := make([]byte, h.chunkSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			data := append([]byte(nil), buf[:n]...)
			if werr := sendChunk(ctx, out, data); werr != nil {
				return fmt.Errorf("%w: error writing to data channel: %w", ErrProcessingFatal, werr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading chunk: %w", err)
		}
	}
}
