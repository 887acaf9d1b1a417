package lease

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// WarpBackend performs the actual raster warp.
type WarpBackend interface {
	Warp(ctx context.Context, src string, opts []string) (string, error)
}

// Warper runs raster warps with a per-call deadline.
type Warper struct {
	backend WarpBackend
	timeout time.Duration
}

// Warp runs one warp under the configured deadline.
// From: airbusgeo/godal#100
// bug: leaseleak
func (w *Warper) Warp(ctx context.Context, src string, opts ...string) (string, error) {
	if src == "" {
		return "", errors.New("warp: empty source")
	}
	wctx, cancel := context.WithTimeout(ctx, w.timeout)
	out, err := w.backend.Warp(wctx, src, opts)
	if err != nil {
		return "", fmt.Errorf("warp %s: %w", src, err)
	}
	cancel()
	return out, nil
}

// WarpNearMiss releases the deadline context on every path.
// ok: leaseleak
func (w *Warper) WarpNearMiss(ctx context.Context, src string, opts ...string) (string, error) {
	if src == "" {
		return "", errors.New("warp: empty source")
	}
	wctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	out, err := w.backend.Warp(wctx, src, opts)
	if err != nil {
		return "", fmt.Errorf("warp %s: %w", src, err)
	}
	return out, nil
}

// Transport bounds every outgoing request with a timeout.
type Transport struct {
	base    http.RoundTripper
	timeout time.Duration
}

// RoundTrip sends the request with a deadline.
// From: netlify/netlify-commons#255
// bug: leaseleak
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	return resp, nil
}

// RoundTripNearMiss hands the cancel func to the body so it runs on Close.
// ok: leaseleak
func (t *Transport) RoundTripNearMiss(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

// Close closes the body and then releases the request context.
// ok: leaseleak
func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
