package lease

import (
	"context"
	"io"
	"net/http"
)

// Result hands the body to the caller.
type Result struct {
	Status int
	Body   io.ReadCloser
}

// The body leaves inside a returned struct.
//
// ok: leaseleak
func Stream(ctx context.Context, hc *http.Client, url string) (*Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	return &Result{Status: resp.StatusCode, Body: resp.Body}, nil
}
