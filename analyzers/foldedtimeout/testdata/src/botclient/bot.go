// Package botclient models an HTTP API client that turned cancellation
// into plain strings, so callers could not tell a canceled request from a
// failed one (the shape of a real bot-library bug).
package botclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

type Client struct{ hc *http.Client }

type APIError struct {
	Method string
	Err    error
}

func (e *APIError) Error() string { return e.Method + ": " + e.Err.Error() }

func (c *Client) call(ctx context.Context, method string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example/"+method, nil)
	if err != nil {
		return fmt.Errorf("build request: %v", err) // not a cancellation: NewRequestWithContext only validates
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("call %s: %v", method, err) // want `fmt.Errorf formats err with %v`
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s: %v", method, err) // a body read error: not bound to ctx here
	}
	return nil
}

func (c *Client) Updates(ctx context.Context) ([]string, error) {
	var out []string
	if err := c.call(ctx, "getUpdates", &out); err != nil {
		// c.call already formats its error with %v (reported there): no
		// identity is left to lose here (the FreshErrors fact).
		return nil, errors.New("getUpdates: " + err.Error())
	}
	return out, nil
}

func (c *Client) Send(ctx context.Context, text string) error {
	if err := c.call(ctx, "sendMessage", nil); err != nil {
		return &APIError{Method: "sendMessage", Err: err} // fresh from c.call: nothing to unwrap
	}
	return nil
}

func (c *Client) Poll(ctx context.Context) error {
	for {
		if _, err := c.Updates(ctx); err != nil {
			if err == context.Canceled { // never true: c.call lost the identity, reported there
				return nil
			}
			return err
		}
	}
}
