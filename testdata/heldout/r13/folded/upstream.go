package folded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// UpstreamHTTPError describes a failed call to a model backend.
type UpstreamHTTPError struct {
	Status int
	Err    error
}

// Error implements error.
// ok: foldedtimeout
func (e *UpstreamHTTPError) Error() string {
	return fmt.Sprintf("upstream status %d: %v", e.Status, e.Err)
}

// Unwrap returns the underlying error.
// ok: foldedtimeout
func (e *UpstreamHTTPError) Unwrap() error {
	return e.Err
}

// Upstream proxies completion requests to a backend.
type Upstream struct {
	http Doer
	url  string
}

// Complete forwards the body. The transport error is copied into a new
// error before wrapping, so Unwrap leads to a plain string error and a
// client disconnect can no longer be told apart from a backend failure.
// From: infinigence/octollm#102
// bug: foldedtimeout
func (u *Upstream) Complete(ctx context.Context, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, body)
	if err != nil {
		return nil, err
	}
	resp, err := u.http.Do(req)
	if err != nil {
		return nil, &UpstreamHTTPError{Status: http.StatusBadGateway, Err: errors.New(err.Error())}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &UpstreamHTTPError{Status: resp.StatusCode, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &UpstreamHTTPError{Status: resp.StatusCode, Err: ErrUnavailable}
	}
	return data, nil
}

// CompleteNearMiss wraps the transport error itself.
// ok: foldedtimeout
func (u *Upstream) CompleteNearMiss(ctx context.Context, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, body)
	if err != nil {
		return nil, err
	}
	resp, err := u.http.Do(req)
	if err != nil {
		return nil, &UpstreamHTTPError{Status: http.StatusBadGateway, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &UpstreamHTTPError{Status: resp.StatusCode, Err: err}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &UpstreamHTTPError{Status: resp.StatusCode, Err: ErrUnavailable}
	}
	return data, nil
}
