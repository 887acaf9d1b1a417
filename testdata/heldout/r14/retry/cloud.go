package retry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrUnauthorized means the server rejected our credentials.
var ErrUnauthorized = errors.New("unauthorized")

// CloudClient talks to the build cloud API.
type CloudClient struct {
	http     *http.Client
	baseURL  string
	attempts int
	warnf    func(format string, args ...any)
}

// once performs a single call.
//
// ok: retrycancel
func (c *CloudClient) once(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// shouldRetryCall reports whether a failed call is worth repeating.
//
// ok: retrycancel
func shouldRetryCall(status int, err error) bool {
	if errors.Is(err, ErrUnauthorized) {
		return false
	}
	if err != nil {
		return true
	}
	return status >= 500 || status == http.StatusTooManyRequests
}

// doCall repeats a call up to c.attempts times while the server or the
// transport fails, warning before each new attempt.
//
// From: earthly/earthly#2119
// bug: retrycancel
func (c *CloudClient) doCall(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var (
		status int
		out    []byte
		err    error
	)
	for attempt := 1; attempt <= c.attempts; attempt++ {
		status, out, err = c.once(ctx, method, path, body)
		if !shouldRetryCall(status, err) {
			return status, out, err
		}
		c.warnf("retrying %s %s (attempt %d/%d): status=%d err=%v", method, path, attempt, c.attempts, status, err)
	}
	if err == nil {
		err = fmt.Errorf("%s %s: giving up after status %d", method, path, status)
	}
	return status, out, err
}

// doCallNearMiss stops as soon as the caller's context is over instead of
// spending the remaining attempts on a dead context.
//
// ok: retrycancel
func (c *CloudClient) doCallNearMiss(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var (
		status int
		out    []byte
		err    error
	)
	for attempt := 1; attempt <= c.attempts; attempt++ {
		status, out, err = c.once(ctx, method, path, body)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return status, out, ctxErr
		}
		if !shouldRetryCall(status, err) {
			return status, out, err
		}
		c.warnf("retrying %s %s (attempt %d/%d): status=%d err=%v", method, path, attempt, c.attempts, status, err)
	}
	if err == nil {
		err = fmt.Errorf("%s %s: giving up after status %d", method, path, status)
	}
	return status, out, err
}
