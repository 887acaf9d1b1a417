package lease

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"heldoutr5a/internal/httpx"
)

// Manifest is an image manifest.
type Manifest struct {
	SchemaVersion int      `json:"schemaVersion"`
	Layers        []string `json:"layers"`
}

// RegistryClient talks to an image registry.
type RegistryClient struct {
	base string
	http *http.Client
}

// FetchManifest keeps the body in an alias and defers its Close only after the status check, so
// every non-200 answer returns with the body open and the connection is never reused.
// From: google/gnostic#117
// bug: leaseleak
func (c *RegistryClient) FetchManifest(ctx context.Context, ref string) (*Manifest, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v2/"+ref, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	body := resp.Body
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch manifest %s: unexpected status %s", ref, resp.Status)
	}
	defer body.Close()
	var m Manifest
	if err := json.NewDecoder(body).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode manifest %s: %w", ref, err)
	}
	return &m, nil
}

// FetchManifestClosed defers the alias's Close before looking at the status code.
// ok: leaseleak
func (c *RegistryClient) FetchManifestClosed(ctx context.Context, ref string) (*Manifest, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v2/"+ref, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	body := resp.Body
	defer body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch manifest %s: unexpected status %s", ref, resp.Status)
	}
	var m Manifest
	if err := json.NewDecoder(body).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode manifest %s: %w", ref, err)
	}
	return &m, nil
}

// PluginError is a plugin's error reply.
type PluginError struct {
	Method string
	Status int
	Msg    string
}

// Error implements error.
// ok: leaseleak
func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s: status %d: %s", e.Method, e.Status, e.Msg)
}

// PluginClient calls a volume/network plugin over HTTP.
type PluginClient struct {
	addr string
	http *http.Client
}

// Call reads the error body of a failed plugin call but returns without closing it; only the
// success path closes the body, so a misbehaving plugin leaks one file descriptor per call.
// From: moby/moby#20680
// bug: leaseleak
func (p *PluginClient) Call(ctx context.Context, method string, args, ret any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.addr+"/"+method, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		msg, readErr := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if readErr != nil {
			return fmt.Errorf("plugin %s: read error body: %w", method, readErr)
		}
		return &PluginError{Method: method, Status: resp.StatusCode, Msg: string(msg)}
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(ret)
}

// CallClosed hands the body to httpx.DrainAndClose in a deferred closure registered before the
// status check, so both paths release it.
// ok: leaseleak
func (p *PluginClient) CallClosed(ctx context.Context, method string, args, ret any) (err error) {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.addr+"/"+method, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := p.http.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := httpx.DrainAndClose(resp.Body); err == nil {
			err = cerr
		}
	}()
	if resp.StatusCode != http.StatusOK {
		msg, readErr := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if readErr != nil {
			return fmt.Errorf("plugin %s: read error body: %w", method, readErr)
		}
		return &PluginError{Method: method, Status: resp.StatusCode, Msg: string(msg)}
	}
	return json.NewDecoder(resp.Body).Decode(ret)
}
