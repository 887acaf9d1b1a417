// Package detached holds code that already has a context and whether it
// passes it on.
package detached

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"os/exec"
	"time"
)

// Download fetches url with http.Get although ctx is available; canceling
// ctx does not stop the request, which can hang for the client's full
// default (no) timeout.
// From: hashicorp/go-getter#320
// bug: detachedctx
func Download(ctx context.Context, url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// DownloadCtx builds the request with ctx.
// ok: detachedctx
func DownloadCtx(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// SOAPClient posts envelopes.
type SOAPClient struct {
	HTTP *http.Client
	URL  string
}

// Post calls req.WithContext but drops its result; the request that is
// sent still carries context.Background and cannot be canceled.
// From: hooklift/gowsdl#162
// bug: detachedctx
func (c *SOAPClient) Post(ctx context.Context, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, c.URL, body)
	if err != nil {
		return nil, err
	}
	req.WithContext(ctx)
	return c.HTTP.Do(req)
}

// PostCtx keeps the copy returned by WithContext.
// ok: detachedctx
func (c *SOAPClient) PostCtx(ctx context.Context, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, c.URL, body)
	if err != nil {
		return nil, err
	}
	req = req.WithContext(ctx)
	return c.HTTP.Do(req)
}

// Blame runs git with exec.Command; when ctx times out the git process
// keeps running and the caller stays blocked in Output.
// From: go-gitea/gitea#1462
// bug: detachedctx
func Blame(ctx context.Context, repo, file string) ([]byte, error) {
	cmd := exec.Command("git", "-C", repo, "blame", "--porcelain", file)
	return cmd.Output()
}

// BlameCtx uses exec.CommandContext so the process is killed on ctx done.
// ok: detachedctx
func BlameCtx(ctx context.Context, repo, file string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "blame", "--porcelain", file)
	return cmd.Output()
}

// Admin serves maintenance endpoints.
type Admin struct {
	DB *sql.DB
}

// CountUsers uses db.QueryRow without a context inside a handler-scoped
// call, so a disconnected client does not cancel the query.
// From: grafana/pyroscope#2821
// bug: detachedctx
func (a *Admin) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := a.DB.QueryRow("SELECT count(*) FROM users").Scan(&n)
	return n, err
}

// CountUsersCtx uses QueryRowContext.
// ok: detachedctx
func (a *Admin) CountUsersCtx(ctx context.Context) (int, error) {
	var n int
	err := a.DB.QueryRowContext(ctx, "SELECT count(*) FROM users").Scan(&n)
	return n, err
}

// Saver persists blobs.
type Saver interface {
	Save(ctx context.Context, key string, b []byte) error
}

// Persist saves with context.Background although the caller passed ctx;
// the request's deadline and cancellation stop at this call.
// From: berachain/beacon-kit#2376
// bug: detachedctx
func Persist(ctx context.Context, s Saver, key string, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Save(context.Background(), key, b)
}

// PersistCtx passes the caller's ctx through.
// ok: detachedctx
func PersistCtx(ctx context.Context, s Saver, key string, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.Save(ctx, key, b)
}

// Probe checks that a TCP endpoint answers, using net.DialTimeout; the
// caller's cancellation is ignored for the whole dial timeout.
// From: pganalyze/collector#565
// bug: detachedctx
func Probe(ctx context.Context, addr string) error {
	conn, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return err
	}
	return conn.Close()
}

// ProbeCtx dials with the context.
// ok: detachedctx
func ProbeCtx(ctx context.Context, addr string) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// Job keeps the context it was built with.
type Job struct {
	ctx  context.Context
	Step func(ctx context.Context) error
}

// NewJob creates a Job with a stored base context.
// ok: detachedctx
func NewJob(ctx context.Context, step func(context.Context) error) *Job {
	return &Job{ctx: ctx, Step: step}
}

// Run takes a ctx but runs the step with the stored field context, so the
// per-run deadline passed in is silently ignored.
// From: stacklok/toolhive#3285
// bug: detachedctx
func (j *Job) Run(ctx context.Context) error {
	return j.Step(j.ctx)
}

// RunCtx uses the per-call ctx.
// ok: detachedctx
func (j *Job) RunCtx(ctx context.Context) error {
	return j.Step(ctx)
}

// Locker releases a distributed lock.
type Locker interface {
	Acquire(ctx context.Context, id string) error
	Release(ctx context.Context, id string) error
}

// WithLock releases the lock on a context detached from cancellation on
// purpose: the release must still run when ctx is already canceled, and it
// is bounded by its own timeout.
// ok: detachedctx
func WithLock(ctx context.Context, l Locker, id string, fn func(context.Context) error) error {
	if err := l.Acquire(ctx, id); err != nil {
		return err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = l.Release(rctx, id)
	}()
	return fn(ctx)
}

// Service is a long-lived component with its own root context.
type Service struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// NewService has no incoming context, so creating its root context from
// context.Background is correct; Close cancels it.
// ok: detachedctx
func NewService() *Service {
	ctx, cancel := context.WithCancel(context.Background())
	return &Service{ctx: ctx, cancel: cancel}
}

// Close cancels the service's root context.
// ok: detachedctx
func (s *Service) Close() {
	s.cancel()
}
