// Package noctx holds calls of context-less APIs where a caller's context
// is in reach.
package noctx

import (
	"context"
	"database/sql"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"time"
)

func fetch(ctx context.Context, url string) (*http.Response, error) {
	return http.Get(url) // want `http.Get takes no context although ctx is in reach: it ignores ctx's deadline and cancellation and keeps running after the caller has given up; use http.NewRequestWithContext`
}

func build(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequest(http.MethodGet, url, nil) // want `http.NewRequest takes no context although ctx is in reach: .*; use http.NewRequestWithContext$`
}

func query(ctx context.Context, db *sql.DB, id int) (*sql.Rows, error) {
	return db.Query("SELECT name FROM users WHERE id = ?", id) // want `db.Query takes no context.*use db.QueryContext$`
}

func begin(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.Begin() // want `db.Begin takes no context.*use BeginTx\(ctx, nil\)$`
}

func run(ctx context.Context, dir string) ([]byte, error) {
	return exec.Command("git", "-C", dir, "status").Output() // want `exec.Command takes no context`
}

func probe(r *http.Request, addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second) // want `net.DialTimeout takes no context although r.Context\(\) is in reach`
	if err != nil {
		return err
	}
	return c.Close()
}

// A user type with both forms.
type Store struct{}

func (Store) Load(key string) (string, error)                             { return "", nil }
func (Store) LoadContext(ctx context.Context, key string) (string, error) { return "", ctx.Err() }

func load(ctx context.Context, s Store) (string, error) {
	return s.Load("k") // want `s.Load takes no context.*use s.LoadContext$`
}

// Near-miss: the compatibility form calls the context form with its own root.
func (s Store) Get(key string) (string, error) { return s.GetContext(context.Background(), key) }

func (Store) GetContext(ctx context.Context, key string) (string, error) { return "", ctx.Err() }

// Near-miss: no caller context in reach.
func fetchNoCtx(url string) (*http.Response, error) {
	return http.Get(url)
}

// Near-miss: a log call's context would carry values only.
func logged(ctx context.Context, msg string) {
	slog.Info(msg)
}

// Near-miss: cleanup in a defer runs after the work.
func cleanup(ctx context.Context, db *sql.DB) error {
	defer db.Exec("UNLOCK TABLES")
	_, err := db.ExecContext(ctx, "LOCK TABLES t WRITE")
	return err
}

// Near-miss: the context forms are used.
func fetchCtx(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// Near-miss: a variant with other parameters is no context form of it.
type Cache struct{}

func (Cache) Fill(key string) error                                 { return nil }
func (Cache) FillContext(ctx context.Context, keys ...string) error { return ctx.Err() }

func fill(ctx context.Context, c Cache) error {
	return c.Fill("k")
}

type Runner struct{ cmd *exec.Cmd }

// Near-miss: the subprocess is the object's, meant to outlive the call.
func (r *Runner) Start(ctx context.Context, exe string) error {
	cmd := exec.Command(exe, "serve")
	r.cmd = cmd
	return cmd.Start()
}

// A request built without the context and returned is still detached.
func buildReq(ctx context.Context, url string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil) // want `http.NewRequest takes no context`
	return req, err
}

type Server struct{ defaults map[string]string }

func LoadDefaults() (map[string]string, error)                           { return nil, nil }
func LoadDefaultsContext(ctx context.Context) (map[string]string, error) { return nil, ctx.Err() }

// Data stored in a field is still loaded without the context.
func (s *Server) Bootstrap(ctx context.Context) error {
	d, err := LoadDefaults() // want `LoadDefaults takes no context`
	if err != nil {
		return err
	}
	s.defaults = d
	return nil
}

// Near-miss: the request is given the context before it is sent.
func buildLate(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req = req.WithContext(ctx)
	return c.Do(req)
}

// A connection kept by its owner: the dial still ignores the caller's
// context (a dial's context bounds only the dial).
type wsConn struct {
	addr string
	conn net.Conn
}

func (c *wsConn) connect(ctx context.Context) error {
	conn, err := net.DialTimeout("tcp", c.addr, time.Second) // want `net.DialTimeout takes no context although ctx is in reach`
	if err != nil {
		return err
	}
	c.conn = conn
	return ctx.Err()
}

func (c *wsConn) connectStored(ctx context.Context) (err error) {
	c.conn, err = net.Dial("tcp", c.addr) // want `net.Dial takes no context although ctx is in reach`
	return err
}

// A dialer's Dial kept in a field: DialContext's context bounds only the
// dial, so the connection the owner keeps was dialed without ctx.
func (c *wsConn) connectDialer(ctx context.Context) error {
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.Dial("tcp", c.addr) // want `d.Dial takes no context although ctx is in reach: it ignores ctx's deadline and cancellation and keeps running after the caller has given up; use d.DialContext`
	if err != nil {
		return err
	}
	c.conn = conn
	return nil
}

// Near-miss: the dialer's context form.
func (c *wsConn) connectDialerContext(ctx context.Context) error {
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.conn = conn
	return nil
}

// A logger whose With builds a child and whose WithContext stores it in a
// context: same parameters after the context, different results, so
// WithContext is not With's context form (zerolog.Logger).
type Logger struct{}

type LogContext struct{ l Logger }

func (l Logger) With() LogContext                                         { return LogContext{l} }
func (l Logger) WithContext(ctx context.Context) context.Context          { return ctx }
func (c LogContext) Logger() Logger                                       { return c.l }
func (l Logger) Sub(name string) (Logger, error)                          { return l, nil }
func (l Logger) SubCtx(ctx context.Context, name string) (*Logger, error) { return &l, nil }

func childLogger(ctx context.Context, l Logger) (Logger, error) {
	child := l.With().Logger()
	return child.Sub("worker")
}

// keySet keeps only the values of the context it is built with.
type keySet struct{ ctx context.Context }

type provider struct{ url string }

type verifier struct{ keys *keySet }

func newKeySet(ctx context.Context, url string) *keySet {
	return &keySet{ctx: context.WithoutCancel(ctx)}
}

// Verifier builds a verifier over a background key set.
func (p *provider) Verifier(cfg string) *verifier {
	return &verifier{keys: newKeySet(context.Background(), p.url)}
}

// VerifierContext drops its context's cancellation: it is a value bag.
func (p *provider) VerifierContext(ctx context.Context, cfg string) *verifier {
	return &verifier{keys: newKeySet(ctx, p.url)}
}

// Refresher's context form does bound its work.
func (p *provider) Refresh(cfg string) error { return nil }

func (p *provider) RefreshContext(ctx context.Context, cfg string) error { return ctx.Err() }

func verify(ctx context.Context, p *provider) error {
	_ = p.Verifier("x")   // VerifierContext would bound nothing
	return p.Refresh("x") // want `p.Refresh takes no context although ctx is in reach`
}
