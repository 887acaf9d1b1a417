// Package untracked holds examples of goroutines that nothing joins, so work
// outlives its owner or the owner waits forever.
package untracked

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"sync"
)

// Series is one time series returned by an origin.
type Series struct {
	Name   string    `json:"name"`
	Points []float64 `json:"points"`
}

// Proxy fans a query out to several origins.
type Proxy struct {
	client *http.Client
	log    *log.Logger
}

// fetch GETs one origin's answer.
// ok: untrackedgo
func (p *Proxy) fetch(ctx context.Context, origin string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("origin %s: %s", origin, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// decodeSeries parses an origin's answer.
// ok: untrackedgo
func decodeSeries(body []byte) ([]Series, error) {
	var s []Series
	err := json.Unmarshal(body, &s)
	return s, err
}

// FetchAll queries every origin concurrently and merges the results. Each
// goroutine calls wg.Done by hand at its exits, but the decode-error return
// skips it, so wg.Wait never returns and the request hangs for good.
// From: trickstercache/trickster#356
// bug: untrackedgo
func (p *Proxy) FetchAll(ctx context.Context, origins []string) ([]Series, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		out      []Series
		firstErr error
	)
	for _, origin := range origins {
		wg.Add(1)
		go func() {
			body, err := p.fetch(ctx, origin)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				wg.Done()
				return
			}
			s, err := decodeSeries(body)
			if err != nil {
				p.log.Printf("origin %s: bad payload: %v", origin, err)
				return
			}
			mu.Lock()
			out = append(out, s...)
			mu.Unlock()
			wg.Done()
		}()
	}
	wg.Wait()
	return out, firstErr
}

// FetchEach is the near-miss of FetchAll: wg.Done is deferred at the top of
// each goroutine, so every exit path reaches it.
// From: trickstercache/trickster#356
// ok: untrackedgo
func (p *Proxy) FetchEach(ctx context.Context, origins []string) ([]Series, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		out      []Series
		firstErr error
	)
	for _, origin := range origins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, err := p.fetch(ctx, origin)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				return
			}
			s, err := decodeSeries(body)
			if err != nil {
				p.log.Printf("origin %s: bad payload: %v", origin, err)
				return
			}
			mu.Lock()
			out = append(out, s...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, firstErr
}
