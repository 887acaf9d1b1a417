package detached

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// httpGetter fetches cache values from a peer.
type httpGetter struct {
	baseURL   string
	transport http.RoundTripper
}

// Fetch gets group/key from the peer. The request is built with
// http.NewRequest, which uses context.Background, so ctx's deadline and
// cancellation never reach the transport and an abandoned Get keeps the peer
// connection busy.
// From: golang/groupcache#132
// bug: detachedctx
func (p *httpGetter) Fetch(ctx context.Context, group, key string) ([]byte, error) {
	u := p.baseURL + url.PathEscape(group) + "/" + url.PathEscape(key)
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("peer returned %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// FetchCtx is the near-miss of Fetch: the request is built with
// http.NewRequestWithContext(ctx, ...).
// From: golang/groupcache#132
// ok: detachedctx
func (p *httpGetter) FetchCtx(ctx context.Context, group, key string) ([]byte, error) {
	u := p.baseURL + url.PathEscape(group) + "/" + url.PathEscape(key)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("peer returned %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}
