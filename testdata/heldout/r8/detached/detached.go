// Package detached holds code that has a context and does, or does not,
// pass it on.
package detached

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Fetching package sources for a build.

// Source is one upstream tarball.
type Source struct {
	URL    string
	SHA256 string
}

// Fetcher downloads sources.
type Fetcher interface {
	Fetch(ctx context.Context, s Source, dst string) error
}

// Build is a package build.
type Build struct {
	fetcher      Fetcher
	sources      []Source
	workdir      string
	fetchTimeout time.Duration
}

// FetchSources downloads every source with a per-source timeout. The
// timeout context is derived from context.Background(), so cancelling the
// build (Ctrl-C, a CI job abort) does not stop a slow download; the build
// sits in fetch until each timeout expires.
// From: chainguard-dev/melange#1018
// bug: detachedctx
func (b *Build) FetchSources(ctx context.Context) error {
	for _, s := range b.sources {
		fctx, cancel := context.WithTimeout(context.Background(), b.fetchTimeout)
		err := b.fetcher.Fetch(fctx, s, b.workdir)
		cancel()
		if err != nil {
			return fmt.Errorf("fetch %s: %w", s.URL, err)
		}
	}
	return nil
}

// FetchSourcesNearMiss derives the per-source timeout from ctx.
// ok: detachedctx
func (b *Build) FetchSourcesNearMiss(ctx context.Context) error {
	for _, s := range b.sources {
		fctx, cancel := context.WithTimeout(ctx, b.fetchTimeout)
		err := b.fetcher.Fetch(fctx, s, b.workdir)
		cancel()
		if err != nil {
			return fmt.Errorf("fetch %s: %w", s.URL, err)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// A TokenReview endpoint that re-runs authentication.

// TokenReview asks whether a bearer token is valid.
type TokenReview struct {
	Token string `json:"token"`
}

// ReviewStatus is the answer.
type ReviewStatus struct {
	Authenticated bool   `json:"authenticated"`
	User          string `json:"user,omitempty"`
}

// Authenticator authenticates a request; it honours req.Context().
type Authenticator interface {
	AuthenticateRequest(req *http.Request) (user string, ok bool, err error)
}

// TokenReviewHandler serves token reviews.
type TokenReviewHandler struct {
	auth Authenticator
}

// writeReview encodes a review answer.
// ok: detachedctx
func writeReview(w http.ResponseWriter, st ReviewStatus) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(st); err != nil {
		log.Printf("token review: write response: %v", err)
	}
}

// ServeHTTP authenticates the submitted token by building a synthetic
// request and passing it through the authenticator chain. http.NewRequest
// gives that request a background context, so the webhook authenticators
// downstream run without the caller's deadline and keep going after the
// caller has timed out.
// From: kubernetes/kubernetes#89702
// bug: detachedctx
func (h *TokenReviewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review TokenReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fake, err := http.NewRequest(http.MethodGet, "/", nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fake.Header.Set("Authorization", "Bearer "+review.Token)
	user, ok, err := h.auth.AuthenticateRequest(fake)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeReview(w, ReviewStatus{Authenticated: ok, User: user})
}

// TokenReviewHandlerNearMiss builds the synthetic request on r's context.
type TokenReviewHandlerNearMiss struct {
	auth Authenticator
}

// ServeHTTP builds the synthetic request with r.Context().
// ok: detachedctx
func (h *TokenReviewHandlerNearMiss) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review TokenReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fake, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "/", nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fake.Header.Set("Authorization", "Bearer "+review.Token)
	user, ok, err := h.auth.AuthenticateRequest(fake)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeReview(w, ReviewStatus{Authenticated: ok, User: user})
}

// ---------------------------------------------------------------------------
// A Lightning wallet's invoice service.

// Invoice is a payment request.
type Invoice struct {
	ID      int64
	Hash    string
	Amount  int64
	Settled bool
}

// InvoiceService reads invoices.
type InvoiceService struct {
	db *sql.DB
}

const invoiceQuery = `SELECT id, payment_hash, amount, settled FROM invoices WHERE user_id = ? AND payment_hash = ?`

// FindInvoice looks up a user's invoice. The query runs on context.TODO()
// although ctx is right there, so a client that gives up (or the request
// deadline) does not cancel a query stuck behind a lock.
// From: getAlby/lndhub.go#95
// bug: detachedctx
func (s *InvoiceService) FindInvoice(ctx context.Context, userID int64, hash string) (*Invoice, error) {
	var inv Invoice
	err := s.db.QueryRowContext(context.TODO(), invoiceQuery, userID, hash).
		Scan(&inv.ID, &inv.Hash, &inv.Amount, &inv.Settled)
	if err != nil {
		return nil, fmt.Errorf("invoice %s: %w", hash, err)
	}
	return &inv, nil
}

// FindInvoiceNearMiss passes ctx to the query.
// ok: detachedctx
func (s *InvoiceService) FindInvoiceNearMiss(ctx context.Context, userID int64, hash string) (*Invoice, error) {
	var inv Invoice
	err := s.db.QueryRowContext(ctx, invoiceQuery, userID, hash).
		Scan(&inv.ID, &inv.Hash, &inv.Amount, &inv.Settled)
	if err != nil {
		return nil, fmt.Errorf("invoice %s: %w", hash, err)
	}
	return &inv, nil
}

// ---------------------------------------------------------------------------
// An OAuth2 token endpoint with tenant-scoped sessions.

type tenantKey struct{}

// TokenIssuer issues tokens for a tenant.
type TokenIssuer interface {
	Issue(ctx context.Context, clientID string) (string, error)
}

// OAuthHandler serves the token endpoint.
type OAuthHandler struct {
	issuer TokenIssuer
}

// newTenantContext starts a root context for out-of-band work (CLI tools,
// cron jobs) tagged with a tenant; it has no parent to inherit from.
// ok: detachedctx
func newTenantContext(tenant string) context.Context {
	return context.WithValue(context.Background(), tenantKey{}, tenant)
}

// withTenant tags a parent context with a tenant.
// ok: detachedctx
func withTenant(parent context.Context, tenant string) context.Context {
	return context.WithValue(parent, tenantKey{}, tenant)
}

// Token issues an access token. It builds the issuer's context with the
// root-context helper meant for cron jobs, so the request context is
// dropped: the issuer's storage calls ignore the client disconnect and
// the server's per-request deadline.
// From: ory/fosite-example#22
// bug: detachedctx
func (h *OAuthHandler) Token(w http.ResponseWriter, r *http.Request) {
	ctx := newTenantContext(r.Header.Get("X-Tenant"))
	tok, err := h.issuer.Issue(ctx, r.FormValue("client_id"))
	if err != nil {
		http.Error(w, "invalid_client: "+err.Error(), http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]string{"access_token": tok}); err != nil {
		log.Printf("token: write response: %v", err)
	}
}

// TokenNearMiss tags the request context instead.
// ok: detachedctx
func (h *OAuthHandler) TokenNearMiss(w http.ResponseWriter, r *http.Request) {
	ctx := withTenant(r.Context(), r.Header.Get("X-Tenant"))
	tok, err := h.issuer.Issue(ctx, r.FormValue("client_id"))
	if err != nil {
		http.Error(w, "invalid_client: "+err.Error(), http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(map[string]string{"access_token": tok}); err != nil {
		log.Printf("token: write response: %v", err)
	}
}

// ---------------------------------------------------------------------------
// Building container images for a deploy.

// Deployer builds and pushes images.
type Deployer struct {
	docker string
	stderr io.Writer
}

// BuildImage runs docker build. exec.Command does not take ctx, so when
// the deploy is interrupted the docker build keeps running to completion in
// the background and the CLI waits for it.
// From: aws/copilot-cli#4716
// bug: detachedctx
func (d *Deployer) BuildImage(ctx context.Context, dir, tag string) error {
	cmd := exec.Command(d.docker, "build", "-t", tag, dir)
	cmd.Stdout = d.stderr
	cmd.Stderr = d.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("docker build %s: %w", tag, err)
	}
	return nil
}

// BuildImageNearMiss uses exec.CommandContext.
// ok: detachedctx
func (d *Deployer) BuildImageNearMiss(ctx context.Context, dir, tag string) error {
	cmd := exec.CommandContext(ctx, d.docker, "build", "-t", tag, dir)
	cmd.Stdout = d.stderr
	cmd.Stderr = d.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("docker build %s: %w", tag, err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// A framed RPC transport.

// FramedTransport connects to an RPC server.
type FramedTransport struct {
	addr        string
	dialTimeout time.Duration
}

// Connect dials the server. net.DialTimeout ignores ctx, so a caller that
// cancels (the app is going to background, the user logged out) still waits
// the full dial timeout against an unreachable server.
// From: keybase/go-framed-msgpack-rpc#150
// bug: detachedctx
func (t *FramedTransport) Connect(ctx context.Context) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", t.addr, t.dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", t.addr, err)
	}
	return c, nil
}

// ConnectNearMiss dials through a net.Dialer with ctx.
// ok: detachedctx
func (t *FramedTransport) ConnectNearMiss(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: t.dialTimeout}
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", t.addr, err)
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// A document conversion client.

// ConvertClient posts documents to a conversion service.
type ConvertClient struct {
	base string
	http *http.Client
}

// readPDF reads a successful conversion response and closes the body.
// ok: detachedctx
func readPDF(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("convert: %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// Convert sends an HTML document for conversion to PDF. http.Client.Post
// builds its own request with no context, so a caller's ctx is never
// attached and a conversion can't be abandoned.
// From: thecodingmachine/gotenberg-go-client#30
// bug: detachedctx
func (c *ConvertClient) Convert(ctx context.Context, html []byte) ([]byte, error) {
	resp, err := c.http.Post(c.base+"/forms/chromium/convert/html", "text/html", bytes.NewReader(html))
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	return readPDF(resp)
}

// ConvertNearMiss builds the request with ctx and sends it with Do.
// ok: detachedctx
func (c *ConvertClient) ConvertNearMiss(ctx context.Context, html []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/forms/chromium/convert/html", bytes.NewReader(html))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/html")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	return readPDF(resp)
}

// ---------------------------------------------------------------------------
// Correct functions that only look detached.

// Server is an HTTP server with graceful shutdown.
type Server struct {
	http  *http.Server
	grace time.Duration
}

// Run serves until ctx ends, then shuts down. By then ctx is done, so the
// shutdown grace period has to hang off a fresh Background context.
// ok: detachedctx
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.http.ListenAndServe() }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	serr := s.http.Shutdown(shutdownCtx)
	lerr := <-errc
	if errors.Is(lerr, http.ErrServerClosed) {
		lerr = nil
	}
	if serr != nil {
		return errors.Join(fmt.Errorf("shutdown: %w", serr), lerr)
	}
	return lerr
}

// AuditLog records completed operations.
type AuditLog struct {
	write   func(ctx context.Context, entry string) error
	timeout time.Duration
}

// Record writes an audit entry for an operation that has already been
// carried out; the entry must land even if the request was canceled just
// after, so it keeps ctx's values but not its cancellation, and bounds the
// write with its own timeout.
// ok: detachedctx
func (a *AuditLog) Record(ctx context.Context, entry string) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.timeout)
	defer cancel()
	if err := a.write(wctx, entry); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Pool keeps warm connections for the lifetime of the process.
type Pool struct {
	ctx    context.Context
	cancel context.CancelFunc
	dial   func(ctx context.Context) (net.Conn, error)
	mu     sync.Mutex
	conns  []net.Conn
}

// NewPool has no caller context; its background work hangs off a root
// context owned by the pool and cancelled by Close.
// ok: detachedctx
func NewPool(dial func(ctx context.Context) (net.Conn, error)) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{ctx: ctx, cancel: cancel, dial: dial}
}

// Warm dials n connections on the pool's lifetime context, bounded by the
// caller's ctx as well.
// ok: detachedctx
func (p *Pool) Warm(ctx context.Context, n int) error {
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	release := context.AfterFunc(p.ctx, stop)
	defer release()
	for range n {
		c, err := p.dial(wctx)
		if err != nil {
			return fmt.Errorf("warm: %w", err)
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
	}
	return nil
}

// Close cancels the pool's context and closes its connections.
// ok: detachedctx
func (p *Pool) Close() error {
	p.cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, c := range p.conns {
		errs = append(errs, c.Close())
	}
	p.conns = nil
	return errors.Join(errs...)
}
