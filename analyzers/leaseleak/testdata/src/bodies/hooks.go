package bodies

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

type apiClient struct {
	http          *http.Client
	afterResponse func(resp *http.Response) error
}

// get lends the response to a hook it cannot see, then closes the body
// itself: a hook that fails leaves the body open.
func (c *apiClient) get(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed on the path through the return when err != nil`
	if err != nil {
		return err
	}
	if err := c.afterResponse(resp); err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// getDeferred registers the close before the hook runs.
func (c *apiClient) getDeferred(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := c.afterResponse(resp); err != nil {
		return fmt.Errorf("hook: %w", err)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// handOver gives the response to a callback and never closes it itself:
// the callback owns it.
func (c *apiClient) handOver(ctx context.Context, url string, handle func(*http.Response) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	return handle(resp)
}

type session struct {
	handshake func(resp *http.Response) error
	stream    *http.Response
}

// open lends the response to the handshake and keeps it when that
// succeeds: the lend and the store leave it to the session.
func (s *session) open(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	if err := s.handshake(resp); err != nil {
		resp.Body.Close()
		return err
	}
	s.stream = resp
	return nil
}

type stream struct{ resp *http.Response }

type dialer struct {
	negotiate func(ctx context.Context, resp *http.Response) (*stream, error)
}

// dial closes the body only when the negotiation that took it fails: on
// success the stream it returns holds the body, so the return of the
// stream is no leak.
func (d *dialer) dial(ctx context.Context, c *http.Client, req *http.Request) (*stream, error) {
	resp, err := c.Do(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	st, err := d.negotiate(ctx, resp)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	return st, nil
}

// dialChecked closes the body after a negotiation that succeeded too: the
// negotiation only borrowed it, and the early return on a bad status
// leaves it open.
func (d *dialer) dialChecked(ctx context.Context, c *http.Client, req *http.Request) (*stream, error) {
	resp, err := c.Do(req.WithContext(ctx)) // want `the response body resp.Body from \(\*http.Client\).Do is not closed on the path through the return`
	if err != nil {
		return nil, err
	}
	st, err := d.negotiate(ctx, resp)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	resp.Body.Close()
	return st, nil
}
