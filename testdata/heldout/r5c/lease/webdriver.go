package lease

import (
	"context"
	"encoding/json"
	"net/http"
)

// Status is a web endpoint's health document.
type Status struct {
	Healthy bool   `json:"healthy"`
	Version string `json:"version"`
}

// WebDriver polls web endpoints.
type WebDriver struct {
	client *http.Client
}

// FetchStatus GETs and decodes a status document. The deferred closure
// closes the body only when the function is failing (err != nil), so every
// successful poll leaves its response body, and connection, open.
// From: honeydipper/honeydipper#87
// bug: leaseleak
func (w *WebDriver) FetchStatus(ctx context.Context, url string) (st Status, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return st, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return st, err
	}
	defer func() {
		if err != nil {
			resp.Body.Close()
		}
	}()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}

// FetchHealth is the near-miss of FetchStatus: the deferred closure always
// closes the body and only uses err to decide whether to report the close
// error.
// From: honeydipper/honeydipper#87
// ok: leaseleak
func (w *WebDriver) FetchHealth(ctx context.Context, url string) (st Status, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return st, err
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return st, err
	}
	defer func() {
		if cerr := resp.Body.Close(); err == nil {
			err = cerr
		}
	}()
	err = json.NewDecoder(resp.Body).Decode(&st)
	return st, err
}
