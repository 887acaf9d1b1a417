package lease

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// PluginClient calls a volume plugin over HTTP.
type PluginClient struct {
	base string
	http *http.Client
}

// Call POSTs args to the plugin method and decodes the reply into ret. The
// body close is deferred only after the status check, so every non-200 reply,
// read for its message and returned as an error, leaks its connection.
// From: moby/moby#20680
// bug: leaseleak
func (c *PluginClient) Call(ctx context.Context, method string, args, ret any) error {
	payload, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/"+method, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("plugin %s: %s: %s", method, resp.Status, bytes.TrimSpace(msg))
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(ret)
}

// CallChecked is the near-miss of Call: the close is deferred right after
// the transport error check, before any status handling.
// From: moby/moby#20680
// ok: leaseleak
func (c *PluginClient) CallChecked(ctx context.Context, method string, args, ret any) error {
	payload, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/"+method, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("plugin %s: %s: %s", method, resp.Status, bytes.TrimSpace(msg))
	}
	return json.NewDecoder(resp.Body).Decode(ret)
}

// OpenStream returns the plugin's event stream. On success the body is the
// return value and the caller closes it; a non-200 reply is closed here.
// ok: leaseleak
func (c *PluginClient) OpenStream(ctx context.Context, method string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/"+method, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("plugin %s: %s", method, resp.Status)
	}
	return resp.Body, nil
}
