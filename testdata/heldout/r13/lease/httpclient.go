package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Doer sends HTTP requests.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Holidays fetches a public holiday calendar.
type Holidays struct {
	http Doer
	url  string
}

// Fetch downloads and decodes the calendar. When the status is not 200 it
// returns without closing the body, leaking the connection.
// From: beego/beego#2285
// bug: leaseleak
func (h *Holidays) Fetch(ctx context.Context, year int) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/%d.json", h.url, year), http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %d: %w", year, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get %d: unexpected status %d", year, resp.StatusCode)
	}
	defer resp.Body.Close()
	var days map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&days); err != nil {
		return nil, fmt.Errorf("decode %d: %w", year, err)
	}
	return days, nil
}

// FetchNearMiss closes the body before checking the status.
// ok: leaseleak
func (h *Holidays) FetchNearMiss(ctx context.Context, year int) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/%d.json", h.url, year), http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get %d: %w", year, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get %d: unexpected status %d", year, resp.StatusCode)
	}
	var days map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&days); err != nil {
		return nil, fmt.Errorf("decode %d: %w", year, err)
	}
	return days, nil
}
