package detached

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// BucketFallbackMapper finds claims for a content hash by probing a bucket
// over HTTP.
type BucketFallbackMapper struct {
	client  *http.Client
	baseURL *url.URL
}

// claimURL returns the bucket URL for hash.
//
// ok: detachedctx
func (m *BucketFallbackMapper) claimURL(hash string) string {
	return m.baseURL.JoinPath("claims", hash).String()
}

// GetClaims fetches the claim blob for hash.
//
// From: storacha/indexing-service#123
// bug: detachedctx
func (m *BucketFallbackMapper) GetClaims(ctx context.Context, hash string) ([]byte, error) {
	resp, err := http.Get(m.claimURL(hash))
	if err != nil {
		return nil, fmt.Errorf("fetching claims for %s: %w", hash, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching claims for %s: status %d", hash, resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}

// GetClaimsNearMiss sends the request with ctx.
//
// ok: detachedctx
func (m *BucketFallbackMapper) GetClaimsNearMiss(ctx context.Context, hash string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.claimURL(hash), nil)
	if err != nil {
		return nil, err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching claims for %s: %w", hash, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching claims for %s: status %d", hash, resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}
