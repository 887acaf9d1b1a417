package lease

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// decodeAndClose releases the body of resp.
//
// ok: leaseleak
func decodeAndClose(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// ok: leaseleak
func GetJSON(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return decodeAndClose(resp, v)
}

// An optional timeout, deferred inside the if.
//
// ok: leaseleak
func (r *Repo) Exec(ctx context.Context, q string, d time.Duration) error {
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	_, err := r.db.ExecContext(ctx, q)
	return err
}

// The lock is scoped to a function literal.
//
// ok: leaseleak
func (r *Repo) Snapshot() map[string]string {
	out := map[string]string{}
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for k, v := range r.cache {
			out[k] = v
		}
	}()
	return out
}
