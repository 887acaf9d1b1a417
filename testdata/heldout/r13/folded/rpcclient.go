package folded

import (
	"context"
	"fmt"
	"net/http"
)

// Doer sends HTTP requests.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// clientError is returned by the generated RPC client. It keeps the
// transport error but has no Unwrap method.
type clientError struct {
	service string
	err     error
}

// Error implements error.
// ok: foldedtimeout
func (e *clientError) Error() string {
	return fmt.Sprintf("%s: %v", e.service, e.err)
}

// callError is clientError with Unwrap.
type callError struct {
	service string
	err     error
}

// Error implements error.
// ok: foldedtimeout
func (e *callError) Error() string {
	return fmt.Sprintf("%s: %v", e.service, e.err)
}

// Unwrap returns the transport error.
// ok: foldedtimeout
func (e *callError) Unwrap() error {
	return e.err
}

// RPCClient calls one service over HTTP.
type RPCClient struct {
	http    Doer
	service string
	url     string
}

// Call posts to the endpoint. A cancelled request comes back wrapped in
// clientError, which hides context.Canceled from errors.Is.
// From: foomo/gotsrpc#64
// bug: foldedtimeout
func (c *RPCClient) Call(ctx context.Context, method string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/"+method, http.NoBody)
	if err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, &clientError{service: c.service, err: err}
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// CallNearMiss uses the unwrappable error type.
// ok: foldedtimeout
func (c *RPCClient) CallNearMiss(ctx context.Context, method string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/"+method, http.NoBody)
	if err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, &callError{service: c.service, err: err}
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
