// Package detached holds detached-context cases: work started under a
// caller's context that runs on Background/TODO, a stored context, or a
// context-less API instead.
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"time"
)

// TunnelManager syncs reverse tunnels from the auth server.
type TunnelManager struct {
	hc   *http.Client
	base string
}

// getJSON GETs path and decodes the JSON body into out.
// ok: detachedctx
func (m *TunnelManager) getJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := m.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Sync lists tunnels with context.TODO() although Sync has a ctx, so when
// the auth server stops answering during a restart the request hangs,
// Sync never returns and the manager's Run cannot shut down.
// From: gravitational/teleport#12373
// bug: detachedctx
func (m *TunnelManager) Sync(ctx context.Context) ([]string, error) {
	var tunnels []string
	if err := m.getJSON(context.TODO(), "/v2/tunnels", &tunnels); err != nil {
		return nil, err
	}
	return tunnels, nil
}

// SyncCtx passes its own ctx to the request.
// ok: detachedctx
func (m *TunnelManager) SyncCtx(ctx context.Context) ([]string, error) {
	var tunnels []string
	if err := m.getJSON(ctx, "/v2/tunnels", &tunnels); err != nil {
		return nil, err
	}
	return tunnels, nil
}

// HTTPPeer fetches cache entries from a peer over HTTP.
type HTTPPeer struct {
	base string
}

// Fetch uses http.Get, which runs on a background context: when the
// caller's request is canceled the peer fetch carries on to completion
// and holds a connection for nothing.
// From: golang/groupcache#132
// bug: detachedctx
func (p *HTTPPeer) Fetch(ctx context.Context, group, key string) ([]byte, error) {
	u := fmt.Sprintf("%s/_groupcache/%s/%s", p.base, url.PathEscape(group), url.PathEscape(key))
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("peer %s: %s", p.base, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// FetchCtx builds the request with the caller's context.
// ok: detachedctx
func (p *HTTPPeer) FetchCtx(ctx context.Context, group, key string) ([]byte, error) {
	u := fmt.Sprintf("%s/_groupcache/%s/%s", p.base, url.PathEscape(group), url.PathEscape(key))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("peer %s: %s", p.base, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// BucketClient lists objects in an object-storage bucket.
type BucketClient struct {
	hc       *http.Client
	endpoint string
}

// List builds its request with http.NewRequest, so the ctx (and the
// WithTimeout deadline the CLI put on it) is never attached and a slow
// listing runs until the server gives up.
// From: MagaluCloud/magalu#220
// bug: detachedctx
func (b *BucketClient) List(ctx context.Context, bucket string) ([]string, error) {
	req, err := http.NewRequest(http.MethodGet, b.endpoint+"/"+url.PathEscape(bucket)+"?list-type=2", nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var keys []string
	if err := json.NewDecoder(resp.Body).Decode(&keys); err != nil {
		return nil, err
	}
	return keys, nil
}

// ListCtx uses http.NewRequestWithContext.
// ok: detachedctx
func (b *BucketClient) ListCtx(ctx context.Context, bucket string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.endpoint+"/"+url.PathEscape(bucket)+"?list-type=2", nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var keys []string
	if err := json.NewDecoder(resp.Body).Decode(&keys); err != nil {
		return nil, err
	}
	return keys, nil
}

// ProbeTCP checks that addr accepts connections. It dials with
// net.DialTimeout, so a probe whose ctx was canceled still waits out the
// full five seconds per unreachable address.
// From: crowdsecurity/crowdsec#3670
// bug: detachedctx
func ProbeTCP(ctx context.Context, addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("probe %s: %w", addr, err)
	}
	return conn.Close()
}

// ProbeTCPCtx dials through a Dialer with the caller's context.
// ok: detachedctx
func ProbeTCPCtx(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("probe %s: %w", addr, err)
	}
	return conn.Close()
}

// FollowLogs streams a pod's logs into w. It starts kubectl with
// exec.Command, so canceling ctx does not kill "kubectl logs --follow",
// which runs until the pod goes away.
// From: smartcontractkit/chainlink-env#478
// bug: detachedctx
func FollowLogs(ctx context.Context, namespace, pod string, w io.Writer) error {
	cmd := exec.Command("kubectl", "logs", "--follow", "-n", namespace, pod)
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl logs %s/%s: %w", namespace, pod, err)
	}
	return nil
}

// FollowLogsCtx uses exec.CommandContext, which kills kubectl on cancel.
// ok: detachedctx
func FollowLogsCtx(ctx context.Context, namespace, pod string, w io.Writer) error {
	cmd := exec.CommandContext(ctx, "kubectl", "logs", "--follow", "-n", namespace, pod)
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl logs %s/%s: %w", namespace, pod, err)
	}
	return nil
}

// SpecDB is a full-text index over specification sections.
type SpecDB struct {
	conn *sql.DB
}

// Search runs the FTS query with conn.Query, which has no context: a
// client that cancels its tool call leaves the expensive query running and
// the handler blocked on it.
// From: higebu/3gpp-mcp#106
// bug: detachedctx
func (d *SpecDB) Search(ctx context.Context, q string, limit int) ([]string, error) {
	rows, err := d.conn.Query(`SELECT section FROM sections WHERE sections MATCH ? LIMIT ?`, q, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SearchCtx uses QueryContext with the handler's context.
// ok: detachedctx
func (d *SpecDB) SearchCtx(ctx context.Context, q string, limit int) ([]string, error) {
	rows, err := d.conn.QueryContext(ctx, `SELECT section FROM sections WHERE sections MATCH ? LIMIT ?`, q, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AuditLog writes audit rows for console requests.
type AuditLog struct {
	db *sql.DB
}

// Record inserts with db.Exec, ignoring the request context: when the
// table is locked the insert waits indefinitely after the browser has
// given up, piling up blocked handlers.
// From: minio/operator#404
// bug: detachedctx
func (a *AuditLog) Record(ctx context.Context, user, action string) error {
	_, err := a.db.Exec(`INSERT INTO audit (user, action, at) VALUES (?, ?, ?)`, user, action, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("audit %s/%s: %w", user, action, err)
	}
	return nil
}

// RecordCtx uses ExecContext.
// ok: detachedctx
func (a *AuditLog) RecordCtx(ctx context.Context, user, action string) error {
	_, err := a.db.ExecContext(ctx, `INSERT INTO audit (user, action, at) VALUES (?, ?, ?)`, user, action, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("audit %s/%s: %w", user, action, err)
	}
	return nil
}

// LatestVersion is a command-line helper with no caller context anywhere
// in reach; its context-less http.Get is bounded by the client timeout.
// ok: detachedctx
func LatestVersion(releasesURL string) (string, error) {
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(releasesURL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var rel struct {
		Tag string `json:"tag_name"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rel); err != nil {
		return "", err
	}
	return rel.Tag, nil
}
