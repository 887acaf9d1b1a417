// Package detached holds request-scoped code from a GraphQL HTTP handler, a
// peer-to-peer dialer, an SQL engine, a record store, a cluster tool and a
// plugin downloader.
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// GraphQL HTTP handler

// RequestOptions are the GraphQL parameters of one HTTP request.
type RequestOptions struct {
	Query         string                 `json:"query"`
	Variables     map[string]interface{} `json:"variables"`
	OperationName string                 `json:"operationName"`
}

// Result is the outcome of executing a GraphQL document.
type Result struct {
	Data   interface{} `json:"data,omitempty"`
	Errors []string    `json:"errors,omitempty"`
}

// Executor runs GraphQL documents against a schema.
type Executor interface {
	Do(ctx context.Context, opts RequestOptions) *Result
}

// Handler serves GraphQL over HTTP.
type Handler struct {
	exec   Executor
	pretty bool
}

// NewRequestOptions extracts the GraphQL parameters from r.
//
// ok: detachedctx
func NewRequestOptions(r *http.Request) (RequestOptions, error) {
	var opts RequestOptions
	if r.Method == http.MethodGet {
		opts.Query = r.URL.Query().Get("query")
		opts.OperationName = r.URL.Query().Get("operationName")
		if v := r.URL.Query().Get("variables"); v != "" {
			if err := json.Unmarshal([]byte(v), &opts.Variables); err != nil {
				return opts, fmt.Errorf("variables: %w", err)
			}
		}
		return opts, nil
	}
	err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&opts)
	return opts, err
}

// writeResult encodes res as the response.
//
// ok: detachedctx
func (h *Handler) writeResult(w http.ResponseWriter, res *Result) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	enc := json.NewEncoder(w)
	if h.pretty {
		enc.SetIndent("", "\t")
	}
	if err := enc.Encode(res); err != nil {
		log.Printf("graphql: write response: %v", err)
	}
}

// ServeHTTP decodes the GraphQL request, executes it and writes the result.
//
// From: graphql-go/handler#25
// bug: detachedctx
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	opts, err := NewRequestOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res := h.exec.Do(context.Background(), opts)
	h.writeResult(w, res)
}

// ServeHTTPNearMiss decodes the GraphQL request, executes it under the
// request's context and writes the result.
//
// ok: detachedctx
func (h *Handler) ServeHTTPNearMiss(w http.ResponseWriter, r *http.Request) {
	opts, err := NewRequestOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res := h.exec.Do(r.Context(), opts)
	h.writeResult(w, res)
}

// Peer-to-peer dialer

// PeerID identifies a remote node.
type PeerID string

// SecureConn is an authenticated connection to a peer.
type SecureConn struct {
	net.Conn
	Remote PeerID
}

// Dialer opens authenticated connections to peers.
type Dialer struct {
	netDialer net.Dialer
	local     PeerID
	handshake func(ctx context.Context, c net.Conn, local, remote PeerID) error
}

// NewDialer returns a dialer for the local peer.
//
// ok: detachedctx
func NewDialer(local PeerID, timeout time.Duration, handshake func(context.Context, net.Conn, PeerID, PeerID) error) *Dialer {
	return &Dialer{netDialer: net.Dialer{Timeout: timeout}, local: local, handshake: handshake}
}

// Dial connects to raddr and performs the secure handshake with remote.
//
// From: ipfs/kubo#772
// bug: detachedctx
func (d *Dialer) Dial(ctx context.Context, raddr string, remote PeerID) (*SecureConn, error) {
	nconn, err := d.netDialer.Dial("tcp", raddr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", raddr, err)
	}
	if err := d.handshake(ctx, nconn, d.local, remote); err != nil {
		nconn.Close()
		return nil, fmt.Errorf("handshake with %s: %w", remote, err)
	}
	return &SecureConn{Conn: nconn, Remote: remote}, nil
}

// DialNearMiss connects to raddr under ctx and performs the secure
// handshake with remote.
//
// ok: detachedctx
func (d *Dialer) DialNearMiss(ctx context.Context, raddr string, remote PeerID) (*SecureConn, error) {
	nconn, err := d.netDialer.DialContext(ctx, "tcp", raddr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", raddr, err)
	}
	if err := d.handshake(ctx, nconn, d.local, remote); err != nil {
		nconn.Close()
		return nil, fmt.Errorf("handshake with %s: %w", remote, err)
	}
	return &SecureConn{Conn: nconn, Remote: remote}, nil
}

// SQL engine SLEEP function

// SQLContext is the per-query context of the engine. It carries the query's
// cancellation together with session information.
type SQLContext struct {
	context.Context
	Session string
	QueryID uint64
}

// Row is one input row of an expression.
type Row []interface{}

// Expression is an evaluable SQL expression.
type Expression interface {
	Eval(ctx *SQLContext, row Row) (interface{}, error)
}

// Sleep implements SLEEP(seconds).
type Sleep struct {
	Child Expression
}

// seconds evaluates the argument as a number of seconds.
//
// ok: detachedctx
func (s *Sleep) seconds(ctx *SQLContext, row Row) (float64, error) {
	v, err := s.Child.Eval(ctx, row)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case nil:
		return 0, nil
	default:
		return 0, fmt.Errorf("SLEEP: invalid argument of type %T", v)
	}
}

// Eval pauses the query for the requested number of seconds and returns 0.
//
// From: src-d/go-mysql-server#797
// bug: detachedctx
func (s *Sleep) Eval(ctx *SQLContext, row Row) (interface{}, error) {
	secs, err := s.seconds(ctx, row)
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	return int64(0), nil
}

// EvalNearMiss pauses the query for the requested number of seconds and
// returns 0, ending early with the query's error if it is cancelled.
//
// ok: detachedctx
func (s *Sleep) EvalNearMiss(ctx *SQLContext, row Row) (interface{}, error) {
	secs, err := s.seconds(ctx, row)
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(secs * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return int64(0), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Record store

// RecordID identifies a record.
type RecordID struct {
	Type string
	Key  string
}

// Record is a stored record with its fields.
type Record struct {
	ID     RecordID
	Fields map[string]string
}

// conn is a database connection of the record store.
type conn struct {
	db *sql.DB
}

// scanRecord reads the field rows of one record and closes rows.
//
// ok: detachedctx
func scanRecord(id RecordID, rows *sql.Rows) (*Record, error) {
	defer rows.Close()
	rec := &Record{ID: id, Fields: make(map[string]string)}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		rec.Fields[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(rec.Fields) == 0 {
		return nil, sql.ErrNoRows
	}
	return rec, nil
}

const recordQuery = `SELECT field, value FROM record_fields WHERE record_type = $1 AND record_key = $2`

// GetRecord loads the record with the given id.
//
// From: SkygearIO/skygear-server#366
// bug: detachedctx
func (c *conn) GetRecord(ctx context.Context, id RecordID) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(recordQuery, id.Type, id.Key)
	if err != nil {
		return nil, fmt.Errorf("query record %s/%s: %w", id.Type, id.Key, err)
	}
	return scanRecord(id, rows)
}

// GetRecordNearMiss loads the record with the given id; the query runs
// under ctx.
//
// ok: detachedctx
func (c *conn) GetRecordNearMiss(ctx context.Context, id RecordID) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := c.db.QueryContext(ctx, recordQuery, id.Type, id.Key)
	if err != nil {
		return nil, fmt.Errorf("query record %s/%s: %w", id.Type, id.Key, err)
	}
	return scanRecord(id, rows)
}

// Cluster node image loading

// Node is a cluster node container.
type Node struct {
	name    string
	runtime string
}

// importArgs returns the runtime arguments that import an image archive
// into the node's containerd.
//
// ok: detachedctx
func (n *Node) importArgs() []string {
	return []string{"exec", "-i", n.name, "ctr", "--namespace=k8s.io", "images", "import", "-"}
}

// LoadImage pipes `save` of the image on the host into the node's image
// import.
//
// From: kubernetes-sigs/kind#1364
// bug: detachedctx
func (n *Node) LoadImage(ctx context.Context, image string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	save := exec.Command(n.runtime, "save", image)
	imp := exec.Command(n.runtime, n.importArgs()...)
	out, err := save.StdoutPipe()
	if err != nil {
		return err
	}
	imp.Stdin = out
	var stderr strings.Builder
	imp.Stderr = &stderr
	if err := save.Start(); err != nil {
		return fmt.Errorf("save %s: %w", image, err)
	}
	if err := imp.Run(); err != nil {
		_ = save.Wait()
		return fmt.Errorf("import %s into %s: %w: %s", image, n.name, err, stderr.String())
	}
	return save.Wait()
}

// LoadImageNearMiss pipes `save` of the image on the host into the node's
// image import; both commands are bound to ctx.
//
// ok: detachedctx
func (n *Node) LoadImageNearMiss(ctx context.Context, image string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	save := exec.CommandContext(ctx, n.runtime, "save", image)
	imp := exec.CommandContext(ctx, n.runtime, n.importArgs()...)
	out, err := save.StdoutPipe()
	if err != nil {
		return err
	}
	imp.Stdin = out
	var stderr strings.Builder
	imp.Stderr = &stderr
	if err := save.Start(); err != nil {
		return fmt.Errorf("save %s: %w", image, err)
	}
	if err := imp.Run(); err != nil {
		_ = save.Wait()
		return fmt.Errorf("import %s into %s: %w: %s", image, n.name, err, stderr.String())
	}
	return save.Wait()
}

// RuntimeVersion reports the container runtime's version. It is called once
// at start-up, before any request context exists.
//
// ok: detachedctx
func RuntimeVersion(runtime string) (string, error) {
	out, err := exec.Command(runtime, "version", "--format", "{{.Server.Version}}").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Plugin downloader

// progressWriter counts the bytes written through it.
type progressWriter struct {
	total   int64
	written int64
	report  func(written, total int64)
}

// Write records len(p) bytes of progress.
//
// ok: detachedctx
func (p *progressWriter) Write(b []byte) (int, error) {
	p.written += int64(len(b))
	if p.report != nil {
		p.report(p.written, p.total)
	}
	return len(b), nil
}

// downloadFile fetches url into path, reporting progress as it goes.
//
// From: cloudquery/cloudquery#97
// bug: detachedctx
func downloadFile(ctx context.Context, path, url string, report func(int64, int64)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, err := http.Get(url)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	pw := &progressWriter{total: resp.ContentLength, report: report}
	if _, err := io.Copy(f, io.TeeReader(resp.Body, pw)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// downloadFileNearMiss fetches url into path under ctx, reporting progress
// as it goes.
//
// ok: detachedctx
func downloadFileNearMiss(ctx context.Context, path, url string, report func(int64, int64)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	pw := &progressWriter{total: resp.ContentLength, report: report}
	if _, err := io.Copy(f, io.TeeReader(resp.Body, pw)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// Contexts chosen on purpose

// AuditEvent is one entry of the audit log.
type AuditEvent struct {
	Actor  string
	Action string
	At     time.Time
}

// AuditLog stores audit events.
type AuditLog struct {
	write func(ctx context.Context, ev AuditEvent) error
}

// Record stores ev after the request that produced it has been answered.
// The write keeps the request's values but deliberately not its
// cancellation: an audit entry must be written even when the client has
// already disconnected. It is still bounded by its own timeout.
//
// ok: detachedctx
func (a *AuditLog) Record(ctx context.Context, ev AuditEvent) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := a.write(wctx, ev); err != nil {
		return fmt.Errorf("audit %s by %s: %w", ev.Action, ev.Actor, err)
	}
	return nil
}

// Refresher periodically reloads a feed list. It owns the context of its
// background loop, created when the refresher is built and cancelled by
// Close.
type Refresher struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// NewRefresher starts the reload loop. No caller context exists at
// construction time, so the loop's lifetime is tied to Close.
//
// ok: detachedctx
func NewRefresher(every time.Duration, reload func(context.Context) error) *Refresher {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Refresher{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := reload(ctx); err != nil && !errors.Is(err, context.Canceled) {
					log.Printf("reload feeds: %v", err)
				}
			}
		}
	}()
	return r
}

// Close stops the reload loop and waits for it.
//
// ok: detachedctx
func (r *Refresher) Close() {
	r.once.Do(r.cancel)
	<-r.done
}

// Main builds the root context of the process from the termination signals
// and runs serve under it.
//
// ok: detachedctx
func Main(serve func(context.Context) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx); err != nil && !errors.Is(err, context.Canceled) {
		log.Printf("serve: %v", err)
		return 1
	}
	return 0
}
