package detached

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Release is a published SDK release.
type Release struct {
	Tag  string `json:"tag_name"`
	Name string `json:"name"`
}

// getJSON decodes the JSON document at url. It checks ctx once up front and
// then calls http.Get, which runs on http.DefaultClient with a background
// context, so the caller's deadline and cancellation bound nothing after
// that first check.
// From: MagaluCloud/magalu#220
// bug: detachedctx
func getJSON[T any](ctx context.Context, url string) (T, error) {
	var v T
	if err := ctx.Err(); err != nil {
		return v, err
	}
	resp, err := http.Get(url)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v, err
}

// fetchJSON is the near-miss of getJSON: the request carries ctx through
// http.NewRequestWithContext.
// From: MagaluCloud/magalu#220
// ok: detachedctx
func fetchJSON[T any](ctx context.Context, url string) (T, error) {
	var v T
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return v, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	return v, err
}

// LatestRelease fetches the newest release (through the buggy helper; the
// defect belongs to getJSON).
// ok: detachedctx
func LatestRelease(ctx context.Context, repoAPI string) (Release, error) {
	return getJSON[Release](ctx, repoAPI+"/releases/latest")
}

// ListReleases fetches all releases through the correct helper.
// ok: detachedctx
func ListReleases(ctx context.Context, repoAPI string) ([]Release, error) {
	return fetchJSON[[]Release](ctx, repoAPI+"/releases")
}
