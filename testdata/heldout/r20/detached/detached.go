// Package detached holds code that already has a context but calls
// context.Background/TODO or a context-less API, so deadlines and
// cancellation stop propagating.
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ---------------------------------------------------------------------------
// SQL logging wrapper (simukti/sqldb-logger#2)

// Level is a log severity.
type Level int

// Log levels.
const (
	LevelDebug Level = iota
	LevelError
)

// Logger receives query logs; ctx carries request-scoped values and deadline.
type Logger interface {
	Log(ctx context.Context, level Level, msg string, data map[string]any)
}

// execer is the part of a driver connection being wrapped.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// LoggedConn wraps a connection and logs every statement.
type LoggedConn struct {
	conn   execer
	logger Logger
}

// NewLoggedConn wraps conn.
//
// ok: detachedctx
func NewLoggedConn(conn execer, logger Logger) *LoggedConn {
	return &LoggedConn{conn: conn, logger: logger}
}

// logEntry builds the structured fields for one statement.
//
// ok: detachedctx
func logEntry(query string, args []any, start time.Time, err error) (Level, map[string]any) {
	data := map[string]any{"query": query, "args": args, "duration": time.Since(start)}
	if err != nil {
		data["error"] = err.Error()
		return LevelError, data
	}
	return LevelDebug, data
}

// ExecContext executes a statement and logs it.
// From: simukti/sqldb-logger#2
// the log call is given context.Background() instead of ctx, so the logger
// loses the request's values and is not bounded by its deadline
//
// bug: detachedctx
func (c *LoggedConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	start := time.Now()
	res, err := c.conn.ExecContext(ctx, query, args...)
	level, data := logEntry(query, args, start, err)
	c.logger.Log(context.Background(), level, "ExecContext", data)
	return res, err
}

// ExecContextNearMiss passes the caller's context to the logger.
// From: simukti/sqldb-logger#2
//
// ok: detachedctx
func (c *LoggedConn) ExecContextNearMiss(ctx context.Context, query string, args ...any) (sql.Result, error) {
	start := time.Now()
	res, err := c.conn.ExecContext(ctx, query, args...)
	level, data := logEntry(query, args, start, err)
	c.logger.Log(ctx, level, "ExecContext", data)
	return res, err
}

// ---------------------------------------------------------------------------
// ORM transaction (go-pg/pg#1372)

// Result is the outcome of a statement.
type Result interface {
	RowsAffected() int
}

// queryRunner runs a formatted query under a context.
type queryRunner interface {
	run(ctx context.Context, query string, params ...any) (Result, error)
}

// Tx is a transaction started with BeginContext; ctx is that context.
type Tx struct {
	ctx    context.Context
	runner queryRunner
}

// BeginContext starts a transaction bound to ctx.
//
// ok: detachedctx
func BeginContext(ctx context.Context, runner queryRunner) (*Tx, error) {
	if _, err := runner.run(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	return &Tx{ctx: ctx, runner: runner}, nil
}

// Exec runs a statement inside the transaction.
// From: go-pg/pg#1372
// Exec runs the statement under context.Background() although the transaction
// carries the context it was begun with, so that context's cancellation and
// deadline no longer reach the statement
//
// bug: detachedctx
func (tx *Tx) Exec(query string, params ...any) (Result, error) {
	return tx.runner.run(context.Background(), query, params...)
}

// ExecNearMiss uses the transaction's context.
// From: go-pg/pg#1372
//
// ok: detachedctx
func (tx *Tx) ExecNearMiss(query string, params ...any) (Result, error) {
	return tx.runner.run(tx.ctx, query, params...)
}

// Commit commits the transaction under its context.
//
// ok: detachedctx
func (tx *Tx) Commit() error {
	_, err := tx.runner.run(tx.ctx, "COMMIT")
	return err
}

// ---------------------------------------------------------------------------
// Functions datastore (fnproject/fn#290)

// App is a registered application.
type App struct {
	Name   string
	Config map[string]string
}

// SQLStore persists apps.
type SQLStore struct {
	db *sql.DB
}

// NewSQLStore builds a store.
//
// ok: detachedctx
func NewSQLStore(db *sql.DB) *SQLStore {
	return &SQLStore{db: db}
}

// InsertApp stores a new app.
// From: fnproject/fn#290
// the insert uses db.Exec, which takes no context, so a cancelled API request
// does not stop the statement
//
// bug: detachedctx
func (s *SQLStore) InsertApp(ctx context.Context, app *App) error {
	cfg, err := json.Marshal(app.Config)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = s.db.Exec(`INSERT INTO apps (name, config) VALUES ($1, $2)`, app.Name, string(cfg))
	if err != nil {
		return fmt.Errorf("inserting app %q: %w", app.Name, err)
	}
	return nil
}

// InsertAppNearMiss uses ExecContext.
// From: fnproject/fn#290
//
// ok: detachedctx
func (s *SQLStore) InsertAppNearMiss(ctx context.Context, app *App) error {
	cfg, err := json.Marshal(app.Config)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO apps (name, config) VALUES ($1, $2)`, app.Name, string(cfg))
	if err != nil {
		return fmt.Errorf("inserting app %q: %w", app.Name, err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Round-tripper dialing (quic-go/quic-go#3359)

// errUnsupportedScheme is returned for non-https URLs.
var errUnsupportedScheme = errors.New("transport: only https is supported")

// Transport opens connections for outgoing requests.
type Transport struct {
	dialer net.Dialer
}

// NewTransport builds a transport with a dial timeout.
//
// ok: detachedctx
func NewTransport(dialTimeout time.Duration) *Transport {
	return &Transport{dialer: net.Dialer{Timeout: dialTimeout}}
}

// hostPort returns the address to dial for req.
//
// ok: detachedctx
func hostPort(req *http.Request) (string, error) {
	if req.URL.Scheme != "https" {
		return "", errUnsupportedScheme
	}
	host := req.URL.Host
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "443")
	}
	return host, nil
}

// Connect opens a connection for req; the caller owns the returned conn.
// From: quic-go/quic-go#3359
// the dial ignores req.Context(), so cancelling the request does not abort a
// dial that is still waiting for the server
//
// bug: detachedctx
func (t *Transport) Connect(req *http.Request) (net.Conn, error) {
	addr, err := hostPort(req)
	if err != nil {
		return nil, err
	}
	conn, err := t.dialer.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	return conn, nil
}

// ConnectNearMiss dials with the request's context.
// From: quic-go/quic-go#3359
//
// ok: detachedctx
func (t *Transport) ConnectNearMiss(req *http.Request) (net.Conn, error) {
	addr, err := hostPort(req)
	if err != nil {
		return nil, err
	}
	conn, err := t.dialer.DialContext(req.Context(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing %s: %w", addr, err)
	}
	return conn, nil
}

// ---------------------------------------------------------------------------
// Dashboard API client (google/syzkaller#5746)

// SessionInfo describes a fuzzing session.
type SessionInfo struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// APIClient talks to the dashboard API.
type APIClient struct {
	baseURL string
	http    *http.Client
}

// NewAPIClient builds a client.
//
// ok: detachedctx
func NewAPIClient(baseURL string, c *http.Client) *APIClient {
	return &APIClient{baseURL: baseURL, http: c}
}

// decodeResponse checks the status and decodes a JSON body, closing it.
//
// ok: detachedctx
func decodeResponse(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unexpected status %s", resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// GetSession fetches one session.
// From: google/syzkaller#5746
// the GET goes through http.Get, which has no context, so the caller's
// deadline and cancellation never reach the request
//
// bug: detachedctx
func (c *APIClient) GetSession(ctx context.Context, id string) (*SessionInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := http.Get(c.baseURL + "/sessions/" + id)
	if err != nil {
		return nil, err
	}
	var s SessionInfo
	if err := decodeResponse(resp, &s); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return &s, nil
}

// GetSessionNearMiss builds the request with ctx.
// From: google/syzkaller#5746
//
// ok: detachedctx
func (c *APIClient) GetSessionNearMiss(ctx context.Context, id string) (*SessionInfo, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/sessions/"+id, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	var s SessionInfo
	if err := decodeResponse(resp, &s); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return &s, nil
}

// ---------------------------------------------------------------------------
// Exporter probe (prometheus/blackbox_exporter#1322)

// ProbeResult is what a probe reports to the scrape.
type ProbeResult struct {
	Success  bool
	Addrs    []net.IPAddr
	Duration time.Duration
}

// DNSProber resolves targets as part of a scrape.
type DNSProber struct {
	resolver *net.Resolver
}

// NewDNSProber builds a prober.
//
// ok: detachedctx
func NewDNSProber(r *net.Resolver) *DNSProber {
	return &DNSProber{resolver: r}
}

// Probe resolves target within the scrape's context.
// From: prometheus/blackbox_exporter#1322
// the lookup is given context.TODO(), so it is not bounded by the scrape
// deadline carried by ctx and can outlive the scrape
//
// bug: detachedctx
func (p *DNSProber) Probe(ctx context.Context, target string) ProbeResult {
	start := time.Now()
	if ctx.Err() != nil {
		return ProbeResult{}
	}
	addrs, err := p.resolver.LookupIPAddr(context.TODO(), target)
	if err != nil {
		return ProbeResult{Duration: time.Since(start)}
	}
	return ProbeResult{Success: len(addrs) > 0, Addrs: addrs, Duration: time.Since(start)}
}

// ProbeNearMiss passes the scrape context to the resolver.
// From: prometheus/blackbox_exporter#1322
//
// ok: detachedctx
func (p *DNSProber) ProbeNearMiss(ctx context.Context, target string) ProbeResult {
	start := time.Now()
	if ctx.Err() != nil {
		return ProbeResult{}
	}
	addrs, err := p.resolver.LookupIPAddr(ctx, target)
	if err != nil {
		return ProbeResult{Duration: time.Since(start)}
	}
	return ProbeResult{Success: len(addrs) > 0, Addrs: addrs, Duration: time.Since(start)}
}
