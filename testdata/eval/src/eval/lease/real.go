package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Modelled on a spec fetcher that closed the body only on 200.
//
// bug: leaseleak
func FetchSpec(ctx context.Context, hc *http.Client, url string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		defer resp.Body.Close()
		var m map[string]any
		return m, json.NewDecoder(resp.Body).Decode(&m)
	}
	return nil, fmt.Errorf("fetch %s: %s", url, resp.Status)
}

type Limiter struct {
	mu      sync.Mutex
	tokens  int
	waiters int
}

// The lock is released on the success path only; the context check returns
// with it held.
//
// bug: leaseleak
func (l *Limiter) Take(ctx context.Context) error {
	l.mu.Lock()
	for l.tokens == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.mu.Unlock()
		time.Sleep(time.Millisecond)
		l.mu.Lock()
	}
	l.tokens--
	l.mu.Unlock()
	return nil
}

// A per-request timeout whose cancel runs only after a successful decode.
//
// bug: leaseleak
func Decode(ctx context.Context, hc *http.Client, url string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return err
	}
	cancel()
	return nil
}

// A temp file is removed but its descriptor is not closed on the copy
// error.
//
// bug: leaseleak
func Spool(r io.Reader) (string, error) {
	f, err := os.CreateTemp("", "spool-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}

// ok: leaseleak
func FetchSpecOK(ctx context.Context, hc *http.Client, url string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", url, resp.Status)
	}
	var m map[string]any
	return m, json.NewDecoder(resp.Body).Decode(&m)
}

// ok: leaseleak
func (l *Limiter) TakeOK(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.tokens == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		l.mu.Unlock()
		time.Sleep(time.Millisecond)
		l.mu.Lock()
	}
	l.tokens--
	return nil
}

// The response is handed to the caller, who closes the body.
//
// ok: leaseleak
func Open(ctx context.Context, hc *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp, nil
}

// Lock in one method, unlock in its pair: the caller holds the lock.
//
// ok: leaseleak
func (l *Limiter) Acquire() {
	l.mu.Lock()
	l.waiters++
}

// ok: leaseleak
func (l *Limiter) ReleaseLock() {
	l.waiters--
	l.mu.Unlock()
}

// The cancel function is stored with the work it stops.
//
// ok: leaseleak
func StartJob(ctx context.Context, jobs map[string]context.CancelFunc, id string, run func(context.Context)) {
	jctx, cancel := context.WithCancel(ctx)
	jobs[id] = cancel
	go run(jctx)
}
