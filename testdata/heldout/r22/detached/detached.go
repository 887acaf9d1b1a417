// Package detached holds code that already has a caller context but uses
// context.Background, a stored context, or a context-less API instead.
package detached

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// chalk-ai/chalk-go#436: token refresh inside request paths.

// Token is a short-lived access token.
type Token struct {
	Value     string
	ExpiresAt time.Time
}

// TokenSource exchanges client credentials for a token.
type TokenSource interface {
	Exchange(ctx context.Context) (*Token, error)
}

// QueryClient runs online queries against the feature server.
type QueryClient struct {
	mu      sync.Mutex
	source  TokenSource
	token   *Token
	http    *http.Client
	baseURL string
}

// validToken returns a cached token or exchanges a new one using ctx.
// ok: detachedctx
func (c *QueryClient) validToken(ctx context.Context) (*Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != nil && time.Until(c.token.ExpiresAt) > time.Minute {
		return c.token, nil
	}
	t, err := c.source.Exchange(ctx)
	if err != nil {
		return nil, fmt.Errorf("refreshing token: %w", err)
	}
	c.token = t
	return t, nil
}

// post sends a JSON request with the bearer token.
// ok: detachedctx
func (c *QueryClient) post(ctx context.Context, path, token string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("chalk: %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// OnlineQuery runs a query for the given inputs.
// From: chalk-ai/chalk-go#436
// The token refresh runs under context.Background(), so a slow auth server
// holds the caller past its deadline and ignores its cancellation.
// bug: detachedctx
func (c *QueryClient) OnlineQuery(ctx context.Context, body io.Reader, out any) error {
	tok, err := c.validToken(context.Background())
	if err != nil {
		return err
	}
	return c.post(ctx, "/v1/query/online", tok.Value, body, out)
}

// UploadFeatures threads the caller's context into the refresh.
// From: chalk-ai/chalk-go#436
// ok: detachedctx
func (c *QueryClient) UploadFeatures(ctx context.Context, body io.Reader, out any) error {
	tok, err := c.validToken(ctx)
	if err != nil {
		return err
	}
	return c.post(ctx, "/v1/upload_features", tok.Value, body, out)
}

// ---------------------------------------------------------------------------
// higebu/3gpp-mcp#106: full-text search from an MCP tool handler.

// SearchHit is one matching specification section.
type SearchHit struct {
	Spec    string
	Section string
	Snippet string
}

// SpecDB wraps the FTS5 database.
type SpecDB struct {
	conn *sql.DB
}

// Search runs the FTS query for the tool handler.
// From: higebu/3gpp-mcp#106
// db.Query has no context, so a cancelled MCP request keeps an expensive FTS
// scan running to completion and holds the connection meanwhile.
// bug: detachedctx
func (d *SpecDB) Search(ctx context.Context, query string, limit int) ([]SearchHit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := d.conn.Query(
		`SELECT spec, section, snippet(sections_fts, 2, '[', ']', '...', 16)
		   FROM sections_fts WHERE sections_fts MATCH ? ORDER BY rank LIMIT ?`, query, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []SearchHit
	for rows.Next() {
		var h SearchHit
		if err := rows.Scan(&h.Spec, &h.Section, &h.Snippet); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// GetSection uses QueryRowContext so cancellation reaches SQLite.
// From: higebu/3gpp-mcp#106
// ok: detachedctx
func (d *SpecDB) GetSection(ctx context.Context, spec, section string) (string, error) {
	var text string
	err := d.conn.QueryRowContext(ctx,
		`SELECT body FROM sections WHERE spec = ? AND section = ?`, spec, section).Scan(&text)
	if err != nil {
		return "", fmt.Errorf("section %s %s: %w", spec, section, err)
	}
	return text, nil
}

// ---------------------------------------------------------------------------
// MagaluCloud/magalu#220: object-storage SDK requests.

// Object is one entry of a bucket listing.
type Object struct {
	Key  string `json:"key"`
	Size int64  `json:"size"`
}

// BucketClient is the object-storage client.
type BucketClient struct {
	http     *http.Client
	endpoint string
}

// List lists the objects of a bucket.
// From: MagaluCloud/magalu#220
// http.NewRequest builds the request on context.Background(), so the
// caller's WithTimeout or cancel never reaches the HTTP round trip.
// bug: detachedctx
func (b *BucketClient) List(ctx context.Context, bucket string) ([]Object, error) {
	u := b.endpoint + "/" + url.PathEscape(bucket) + "?list-type=2"
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list %s: %s", bucket, resp.Status)
	}
	var out struct {
		Contents []Object `json:"contents"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return out.Contents, nil
}

// Delete builds its request with NewRequestWithContext.
// From: MagaluCloud/magalu#220
// ok: detachedctx
func (b *BucketClient) Delete(ctx context.Context, bucket string) error {
	u := b.endpoint + "/" + url.PathEscape(bucket)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return err
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("delete %s: %s", bucket, resp.Status)
	}
	return nil
}

// ---------------------------------------------------------------------------
// smartcontractkit/chainlink-env#478: following pod logs with kubectl.

// Environment is a test environment in one namespace.
type Environment struct {
	Namespace string
	Kubectl   string
}

// FollowLogs streams a pod's logs to w until the pod goes away.
// From: smartcontractkit/chainlink-env#478
// exec.Command ignores ctx, so "kubectl logs --follow" keeps running after
// the test's context is cancelled and the call never returns.
// bug: detachedctx
func (e *Environment) FollowLogs(ctx context.Context, pod string, w io.Writer) error {
	cmd := exec.Command(e.Kubectl, "logs", "--follow", "-n", e.Namespace, pod)
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting kubectl logs: %w", err)
	}
	return cmd.Wait()
}

// PodEvents runs kubectl under exec.CommandContext so ctx can kill it.
// From: smartcontractkit/chainlink-env#478
// ok: detachedctx
func (e *Environment) PodEvents(ctx context.Context, pod string) ([]string, error) {
	cmd := exec.CommandContext(ctx, e.Kubectl, "get", "events", "-n", e.Namespace,
		"--field-selector", "involvedObject.name="+pod, "-o", "name")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kubectl get events: %w", err)
	}
	var events []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		events = append(events, sc.Text())
	}
	return events, sc.Err()
}

// ---------------------------------------------------------------------------
// la5nta/pat#353: dialling a telnet or TCP transport.

// Connector opens the transport named by a connect URL.
type Connector struct {
	dialTimeout time.Duration
}

// Connect dials the URL's host for the telnet scheme.
// From: la5nta/pat#353
// net.DialTimeout cannot be aborted, so the user's abort (ctx cancel) waits
// out the whole dial timeout before Connect gives up.
// bug: detachedctx
func (c *Connector) Connect(ctx context.Context, connectURL string) (net.Conn, error) {
	u, err := url.Parse(connectURL)
	if err != nil {
		return nil, fmt.Errorf("invalid connect url: %w", err)
	}
	if u.Scheme != "telnet" {
		return nil, fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, c.dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u.Host, err)
	}
	return conn, nil
}

// ConnectContext dials with a Dialer bound to ctx.
// From: la5nta/pat#353
// ok: detachedctx
func (c *Connector) ConnectContext(ctx context.Context, connectURL string) (net.Conn, error) {
	u, err := url.Parse(connectURL)
	if err != nil {
		return nil, fmt.Errorf("invalid connect url: %w", err)
	}
	if u.Scheme != "telnet" {
		return nil, fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	d := net.Dialer{Timeout: c.dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", u.Host, err)
	}
	return conn, nil
}

// ---------------------------------------------------------------------------
// sot-tech/mochi#21: tracker storage called from announce handlers.

// KV is the subset of a Redis client the peer store uses.
type KV interface {
	HSet(ctx context.Context, key, field, value string) error
	HDel(ctx context.Context, key, field string) error
	Expire(ctx context.Context, key string, ttl time.Duration) error
}

// PeerStore keeps swarm membership in Redis.
type PeerStore struct {
	ctx context.Context // lifetime of the store, cancelled on Stop
	kv  KV
	ttl time.Duration
}

// PutSeeder records a seeder for an announce.
// From: sot-tech/mochi#21
// The writes use the store's lifetime context instead of the announce's, so
// a client that hangs up (or a request deadline) does not stop them.
// bug: detachedctx
func (s *PeerStore) PutSeeder(ctx context.Context, infoHash, peer string) error {
	key := "seeders:" + infoHash
	if err := s.kv.HSet(s.ctx, key, peer, fmt.Sprint(time.Now().Unix())); err != nil {
		return fmt.Errorf("put seeder: %w", err)
	}
	return s.kv.Expire(s.ctx, key, s.ttl)
}

// PutLeecher uses the announce's context for its writes.
// From: sot-tech/mochi#21
// ok: detachedctx
func (s *PeerStore) PutLeecher(ctx context.Context, infoHash, peer string) error {
	key := "leechers:" + infoHash
	if err := s.kv.HSet(ctx, key, peer, fmt.Sprint(time.Now().Unix())); err != nil {
		return fmt.Errorf("put leecher: %w", err)
	}
	return s.kv.Expire(ctx, key, s.ttl)
}

// GraduateLeecher moves a peer from leechers to seeders. The removal of the
// leecher entry must finish even if the announce is cancelled half-way, so
// it runs on a context that keeps the announce's values but not its
// cancellation, bounded by its own short timeout.
// From: sot-tech/mochi#21
// ok: detachedctx
func (s *PeerStore) GraduateLeecher(ctx context.Context, infoHash, peer string) error {
	key := "seeders:" + infoHash
	if err := s.kv.HSet(ctx, key, peer, fmt.Sprint(time.Now().Unix())); err != nil {
		return fmt.Errorf("graduate leecher: %w", err)
	}
	if err := s.kv.Expire(ctx, key, s.ttl); err != nil {
		return fmt.Errorf("graduate leecher: %w", err)
	}
	cleanupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	return s.kv.HDel(cleanupCtx, "leechers:"+infoHash, peer)
}
