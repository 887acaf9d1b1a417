// Package lease holds acquired resources that are, or are not, released on
// every path.
package lease

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Posting replies to a social network API.

// Status is a posted status.
type Status struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// SocialClient posts statuses.
type SocialClient struct {
	base  string
	token string
	http  *http.Client
}

// newReplyRequest builds the POST for a reply.
// ok: leaseleak
func (c *SocialClient) newReplyRequest(ctx context.Context, inReplyTo, text string) (*http.Request, error) {
	form := url.Values{"status": {text}, "in_reply_to_id": {inReplyTo}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/v1/statuses", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+c.token)
	return req, nil
}

// Reply posts a reply. The body is closed only after a successful decode;
// a non-2xx answer (rate limit, a deleted parent) or a decode failure
// returns with the body open, and under a reply storm the transport runs
// out of idle connections.
// From: chitoku-k/ejaculation-counter#265
// bug: leaseleak
func (c *SocialClient) Reply(ctx context.Context, inReplyTo, text string) (*Status, error) {
	req, err := c.newReplyRequest(ctx, inReplyTo, text)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reply: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("reply: unexpected status %s", resp.Status)
	}
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("reply: decode: %w", err)
	}
	if err := resp.Body.Close(); err != nil {
		return nil, fmt.Errorf("reply: close: %w", err)
	}
	return &st, nil
}

// ReplyNearMiss closes the body on every path with a deferred close.
// ok: leaseleak
func (c *SocialClient) ReplyNearMiss(ctx context.Context, inReplyTo, text string) (*Status, error) {
	req, err := c.newReplyRequest(ctx, inReplyTo, text)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reply: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("reply: unexpected status %s", resp.Status)
	}
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("reply: decode: %w", err)
	}
	return &st, nil
}

// ---------------------------------------------------------------------------
// Reading a transactional outbox.

// OutboxRecord is one pending message.
type OutboxRecord struct {
	ID      int64
	Payload []byte
}

// Outbox reads pending messages.
type Outbox struct {
	db *sql.DB
}

const pendingQuery = `SELECT id, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT ?`

// Pending returns up to limit unsent records. rows.Close runs only after a
// clean iteration; a scan failure (a NULL payload, or the context expiring
// mid-iteration) returns with the rows open and the connection pinned, and
// the relay stalls once the pool is used up.
// From: wework/grabbit#91
// bug: leaseleak
func (o *Outbox) Pending(ctx context.Context, limit int) ([]OutboxRecord, error) {
	rows, err := o.db.QueryContext(ctx, pendingQuery, limit)
	if err != nil {
		return nil, fmt.Errorf("outbox query: %w", err)
	}
	var out []OutboxRecord
	for rows.Next() {
		var r OutboxRecord
		if err := rows.Scan(&r.ID, &r.Payload); err != nil {
			return nil, fmt.Errorf("outbox scan: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("outbox close: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("outbox rows: %w", err)
	}
	return out, nil
}

// PendingNearMiss defers rows.Close right after the query succeeds.
// ok: leaseleak
func (o *Outbox) PendingNearMiss(ctx context.Context, limit int) ([]OutboxRecord, error) {
	rows, err := o.db.QueryContext(ctx, pendingQuery, limit)
	if err != nil {
		return nil, fmt.Errorf("outbox query: %w", err)
	}
	defer rows.Close()
	var out []OutboxRecord
	for rows.Next() {
		var r OutboxRecord
		if err := rows.Scan(&r.ID, &r.Payload); err != nil {
			return nil, fmt.Errorf("outbox scan: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("outbox rows: %w", err)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// A market-data session handling inbound payloads.

// Payload is a data chunk.
type Payload struct {
	Stream uint16
	Data   []byte
}

// Association is a client session with a trading gateway.
type Association struct {
	mu     sync.Mutex
	active bool
	rx     []Payload
	notify func(ctx context.Context, p Payload) error
}

// ErrNotActive reports data on an inactive session.
var ErrNotActive = errors.New("session: not active")

// HandleData queues a payload and notifies the upper layer. The early
// returns for a canceled context and an inactive association leave mu
// locked, and the next packet on this association deadlocks the reader.
// From: scmhub/ibsync#15
// bug: leaseleak
func (a *Association) HandleData(ctx context.Context, p Payload) error {
	a.mu.Lock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if !a.active {
		return ErrNotActive
	}
	a.rx = append(a.rx, p)
	a.mu.Unlock()
	return a.notify(ctx, p)
}

// HandleDataNearMiss unlocks on the early returns as well.
// ok: leaseleak
func (a *Association) HandleDataNearMiss(ctx context.Context, p Payload) error {
	a.mu.Lock()
	if err := ctx.Err(); err != nil {
		a.mu.Unlock()
		return err
	}
	if !a.active {
		a.mu.Unlock()
		return ErrNotActive
	}
	a.rx = append(a.rx, p)
	a.mu.Unlock()
	return a.notify(ctx, p)
}

// ---------------------------------------------------------------------------
// A cluster client fetching allocations over RPC.

// Alloc is a scheduled allocation.
type Alloc struct {
	ID string
}

// RPC is the server RPC surface.
type RPC interface {
	NodeAllocs(ctx context.Context, nodeID string) ([]*Alloc, error)
}

// NodeClient talks to servers for one node.
type NodeClient struct {
	rpc        RPC
	rpcTimeout time.Duration
}

// rpcContext derives the per-call context; the caller must call the
// returned cancel func.
// ok: leaseleak
func (c *NodeClient) rpcContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.rpcTimeout)
}

// FetchAllocs fetches the node's allocations. The per-call cancel func is
// called only on success, so every failed call (and the client retries
// failed calls every few seconds while servers are down) leaves its timer
// and context registered with the long-lived parent until the timeout
// fires.
// From: hashicorp/nomad#4283
// bug: leaseleak
func (c *NodeClient) FetchAllocs(ctx context.Context, nodeID string) ([]*Alloc, error) {
	rctx, done := c.rpcContext(ctx)
	allocs, err := c.rpc.NodeAllocs(rctx, nodeID)
	if err != nil {
		return nil, fmt.Errorf("node %s allocs: %w", nodeID, err)
	}
	done()
	return allocs, nil
}

// FetchAllocsNearMiss defers the cancel func.
// ok: leaseleak
func (c *NodeClient) FetchAllocsNearMiss(ctx context.Context, nodeID string) ([]*Alloc, error) {
	rctx, done := c.rpcContext(ctx)
	defer done()
	allocs, err := c.rpc.NodeAllocs(rctx, nodeID)
	if err != nil {
		return nil, fmt.Errorf("node %s allocs: %w", nodeID, err)
	}
	return allocs, nil
}

// ---------------------------------------------------------------------------
// Waiting for a service to be registered with a federation.

// Registry answers registration queries.
type Registry interface {
	IsRegistered(ctx context.Context, id string) (bool, error)
}

// Registrar waits on a registry.
type Registrar struct {
	api       Registry
	pollEvery time.Duration
}

// WaitRegistered polls until id is registered. The ticker is stopped on
// the error and success paths but not when ctx is done, which is how
// this wait usually ends during shutdown.
// From: PelicanPlatform/pelican#1238
// bug: leaseleak
func (r *Registrar) WaitRegistered(ctx context.Context, id string) error {
	t := time.NewTicker(r.pollEvery)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			ok, err := r.api.IsRegistered(ctx, id)
			if err != nil {
				t.Stop()
				return fmt.Errorf("registration of %s: %w", id, err)
			}
			if ok {
				t.Stop()
				return nil
			}
		}
	}
}

// WaitRegisteredNearMiss defers t.Stop.
// ok: leaseleak
func (r *Registrar) WaitRegisteredNearMiss(ctx context.Context, id string) error {
	t := time.NewTicker(r.pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			ok, err := r.api.IsRegistered(ctx, id)
			if err != nil {
				return fmt.Errorf("registration of %s: %w", id, err)
			}
			if ok {
				return nil
			}
		}
	}
}

// ---------------------------------------------------------------------------
// A devops API client with response hooks.

// ApiClient calls a REST API and lets plugins inspect responses.
type ApiClient struct {
	base          string
	http          *http.Client
	afterResponse func(resp *http.Response) error
}

// ErrIgnoreAndContinue is returned by hooks to skip a response.
var ErrIgnoreAndContinue = errors.New("api: ignore response")

// Get fetches path into out. When the after-response hook rejects the
// response (it does so for every 404 and 429 by design), Get returns before
// the deferred close is registered and the body leaks.
// From: apache/devlake#1753
// bug: leaseleak
func (c *ApiClient) Get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if c.afterResponse != nil {
		if err := c.afterResponse(resp); err != nil {
			return fmt.Errorf("GET %s: hook: %w", path, err)
		}
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// GetNearMiss registers the close before running the hook.
// ok: leaseleak
func (c *ApiClient) GetNearMiss(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if c.afterResponse != nil {
		if err := c.afterResponse(resp); err != nil {
			return fmt.Errorf("GET %s: hook: %w", path, err)
		}
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// ---------------------------------------------------------------------------
// Topic lookups limited by a permit pool.

// Permits is a counting semaphore.
type Permits struct {
	slots chan struct{}
}

// NewPermits returns a pool of n permits.
// ok: leaseleak
func NewPermits(n int) *Permits {
	return &Permits{slots: make(chan struct{}, n)}
}

// TryAcquire takes a permit if one is free.
// ok: leaseleak
func (p *Permits) TryAcquire() bool {
	select {
	case p.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release returns a permit.
// ok: leaseleak
func (p *Permits) Release() {
	<-p.slots
}

// LookupRequest asks which broker owns a topic.
type LookupRequest struct {
	Topic     string
	Principal string
}

// LookupResponse names the owning broker.
type LookupResponse struct {
	BrokerURL string
}

// LookupService answers topic lookups.
type LookupService struct {
	permits   *Permits
	authorize func(ctx context.Context, principal, topic string) error
	lookup    func(ctx context.Context, topic string) (*LookupResponse, error)
}

// ErrTooManyLookups rejects a lookup when no permit is free.
var ErrTooManyLookups = errors.New("lookup: too many concurrent requests")

// HandleLookup answers one lookup under a permit. A failed authorization
// (including one cut short by the client's deadline) returns before the
// deferred Release is registered, so each rejected lookup leaks a permit
// and the broker eventually refuses all lookups.
// From: apache/pulsar#14888
// bug: leaseleak
func (s *LookupService) HandleLookup(ctx context.Context, req LookupRequest) (*LookupResponse, error) {
	if !s.permits.TryAcquire() {
		return nil, ErrTooManyLookups
	}
	if err := s.authorize(ctx, req.Principal, req.Topic); err != nil {
		return nil, fmt.Errorf("lookup %s: %w", req.Topic, err)
	}
	defer s.permits.Release()
	return s.lookup(ctx, req.Topic)
}

// HandleLookupNearMiss defers Release immediately after acquiring.
// ok: leaseleak
func (s *LookupService) HandleLookupNearMiss(ctx context.Context, req LookupRequest) (*LookupResponse, error) {
	if !s.permits.TryAcquire() {
		return nil, ErrTooManyLookups
	}
	defer s.permits.Release()
	if err := s.authorize(ctx, req.Principal, req.Topic); err != nil {
		return nil, fmt.Errorf("lookup %s: %w", req.Topic, err)
	}
	return s.lookup(ctx, req.Topic)
}

// ---------------------------------------------------------------------------
// Correct functions that only look like they leak.

// Watcher holds a subscription open until Close.
type Watcher struct {
	cancel context.CancelFunc
	events <-chan string
}

// Watch starts a subscription whose lifetime is the returned Watcher's;
// the cancel func is stored and called by Close.
// ok: leaseleak
func Watch(ctx context.Context, subscribe func(ctx context.Context) (<-chan string, error)) (*Watcher, error) {
	wctx, cancel := context.WithCancel(ctx)
	events, err := subscribe(wctx)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Watcher{cancel: cancel, events: events}, nil
}

// Close ends the subscription.
// ok: leaseleak
func (w *Watcher) Close() {
	w.cancel()
}

// Events returns the event channel.
// ok: leaseleak
func (w *Watcher) Events() <-chan string {
	return w.events
}

// Store wraps a database.
type Store struct {
	db *sql.DB
}

// OpenEvents returns rows for the caller to iterate and close; ownership of
// the rows passes to the caller on success.
// ok: leaseleak
func (s *Store) OpenEvents(ctx context.Context, since time.Time) (*sql.Rows, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind FROM events WHERE at > ?`, since)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return rows, nil
}

// CountEvents takes the rows from OpenEvents and closes them.
// ok: leaseleak
func (s *Store) CountEvents(ctx context.Context, since time.Time) (map[string]int, error) {
	rows, err := s.OpenEvents(ctx, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var id int64
		var kind string
		if err := rows.Scan(&id, &kind); err != nil {
			return nil, err
		}
		counts[kind]++
	}
	return counts, rows.Err()
}

// Transfer moves funds in a transaction. The deferred func rolls back on
// every error path; after a failed Commit the rollback reports ErrTxDone,
// which is expected and not added to the error.
// ok: leaseleak
func (s *Store) Transfer(ctx context.Context, from, to int64, cents int64) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
			err = errors.Join(err, rerr)
		}
	}()
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET cents = cents - ? WHERE id = ?`, cents, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET cents = cents + ? WHERE id = ?`, cents, to); err != nil {
		return err
	}
	return tx.Commit()
}

// Snapshot copies a response body into memory, closing it explicitly in
// each branch instead of with defer.
// ok: leaseleak
func Snapshot(resp *http.Response, max int64) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(resp.Body, max)); err != nil {
		return nil, errors.Join(err, resp.Body.Close())
	}
	if err := resp.Body.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
