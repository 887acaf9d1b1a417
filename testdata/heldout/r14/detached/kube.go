package detached

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path"
)

// KubeRequest is a fluent request to a backend API server.
type KubeRequest struct {
	client *http.Client
	base   *url.URL
	verb   string
	parts  []string
	body   io.Reader
}

// Resource appends path segments.
//
// ok: detachedctx
func (r *KubeRequest) Resource(parts ...string) *KubeRequest {
	r.parts = append(r.parts, parts...)
	return r
}

// url returns the full request URL.
//
// ok: detachedctx
func (r *KubeRequest) url() string {
	u := *r.base
	u.Path = path.Join(append([]string{u.Path}, r.parts...)...)
	return u.String()
}

// Do sends the request.
//
// From: amimof/multikube#3
// bug: detachedctx
func (r *KubeRequest) Do(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(context.TODO(), r.verb, r.url(), r.body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return r.client.Do(req)
}

// DoNearMiss sends the request with the caller's ctx.
//
// ok: detachedctx
func (r *KubeRequest) DoNearMiss(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, r.verb, r.url(), r.body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	return r.client.Do(req)
}
