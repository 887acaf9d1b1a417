package detached

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
)

// Batch is a group of metrics or spans sent together.
type Batch struct {
	Common map[string]any   `json:"common"`
	Items  []map[string]any `json:"items"`
}

// RequestFactory builds ingest requests.
type RequestFactory struct {
	endpoint  string
	insertKey string
	userAgent string
}

// encode gzips the JSON form of batches.
//
// ok: detachedctx
func (f *RequestFactory) encode(batches []Batch) (io.Reader, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(batches); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

// BuildRequest builds the POST for batches.
//
// From: newrelic/newrelic-telemetry-sdk-go#66
// bug: detachedctx
func (f *RequestFactory) BuildRequest(ctx context.Context, batches []Batch) (*http.Request, error) {
	body, err := f.encode(batches)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, f.endpoint, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Api-Key", f.insertKey)
	req.Header.Set("User-Agent", f.userAgent)
	return req, nil
}

// BuildRequestNearMiss attaches ctx to the request.
//
// ok: detachedctx
func (f *RequestFactory) BuildRequestNearMiss(ctx context.Context, batches []Batch) (*http.Request, error) {
	body, err := f.encode(batches)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.endpoint, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Api-Key", f.insertKey)
	req.Header.Set("User-Agent", f.userAgent)
	return req, nil
}

// buildLegacyRequest creates the request and then attaches ctx with
// WithContext, the pre-Go 1.13 way; the request does carry ctx.
//
// ok: detachedctx
func (f *RequestFactory) buildLegacyRequest(ctx context.Context, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, f.endpoint, body)
	if err != nil {
		return nil, err
	}
	req = req.WithContext(ctx)
	req.Header.Set("Api-Key", f.insertKey)
	return req, nil
}
