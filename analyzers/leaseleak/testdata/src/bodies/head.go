package bodies

import (
	"context"
	"net/http"
)

// The response to a HEAD request has no body to close.
func exists(ctx context.Context, c *http.Client, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	return resp.StatusCode == http.StatusOK, nil
}

func existsHead(url string) bool {
	resp, err := http.Head(url)
	return err == nil && resp.StatusCode == http.StatusOK
}

func existsLit(c *http.Client, req *http.Request) int {
	resp, err := c.Do(&http.Request{Method: "HEAD", URL: req.URL})
	if err != nil {
		return 0
	}
	return resp.StatusCode
}

// Near miss: a GET's body must be closed.
func fetchStatus(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req) // want `response body`
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}
