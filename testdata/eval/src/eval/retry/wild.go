package retry

import (
	"context"
	"net/http"
	"time"
)

// The request carries ctx; the retry loop around Do sleeps with
// time.Sleep between attempts.
//
// bug: retrycancel
func (a *API) Post(ctx context.Context, maxRetries int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, nil)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	for i := 0; i < maxRetries; i++ {
		resp, err = a.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Duration(i+1) * 250 * time.Millisecond)
	}
	return nil, err
}

// ok: retrycancel
func (a *API) PostOK(ctx context.Context, maxRetries int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, nil)
	if err != nil {
		return nil, err
	}
	var resp *http.Response
	for i := 0; i < maxRetries; i++ {
		resp, err = a.hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		t := time.NewTimer(time.Duration(i+1) * 250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	return nil, err
}
