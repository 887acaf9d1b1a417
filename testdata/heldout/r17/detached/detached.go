// Package detached contains the parts of a service mesh agent, a build tool,
// an RPC channel, a transparency log signer, an update checker and a small
// board service that call out to other systems.
package detached

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"time"
)

// WatchSet collects the change channels of the objects read in one pass.
type WatchSet struct {
	mu    sync.Mutex
	chans []<-chan struct{}
}

// Add registers ch with the set.
// ok: detachedctx
func (ws *WatchSet) Add(ch <-chan struct{}) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.chans = append(ws.chans, ch)
}

// WatchCh returns a channel that receives nil once any registered channel
// fires, or ctx.Err() once ctx ends.
// ok: detachedctx
func (ws *WatchSet) WatchCh(ctx context.Context) <-chan error {
	out := make(chan error, 1)
	ws.mu.Lock()
	chans := append([]<-chan struct{}(nil), ws.chans...)
	ws.mu.Unlock()
	go func() {
		agg := make(chan struct{}, 1)
		stop := make(chan struct{})
		defer close(stop)
		for _, ch := range chans {
			go func() {
				select {
				case <-ch:
					select {
					case agg <- struct{}{}:
					default:
					}
				case <-stop:
				}
			}()
		}
		select {
		case <-agg:
			out <- nil
		case <-ctx.Done():
			out <- ctx.Err()
		}
	}()
	return out
}

// Service is one catalog entry.
type Service struct {
	Name string
	Port int
}

// Catalog reads services and records what to watch for changes.
type Catalog interface {
	Services(ws *WatchSet) ([]Service, error)
}

// ConfigSource keeps proxy configuration in sync with the catalog.
type ConfigSource struct {
	catalog Catalog
	apply   func([]Service)
}

// NewConfigSource returns a source that hands every catalog snapshot to
// apply.
// ok: detachedctx
func NewConfigSource(c Catalog, apply func([]Service)) *ConfigSource {
	return &ConfigSource{catalog: c, apply: apply}
}

// syncLoop reapplies the catalog every time it changes until ctx ends.
// From: hashicorp/consul#14916
// bug: detachedctx
func (s *ConfigSource) syncLoop(ctx context.Context) error {
	for {
		ws := &WatchSet{}
		svcs, err := s.catalog.Services(ws)
		if err != nil {
			return fmt.Errorf("read catalog: %w", err)
		}
		s.apply(svcs)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ws.WatchCh(context.Background()):
			if err != nil {
				return err
			}
		}
	}
}

// syncLoopNearMiss reapplies the catalog every time it changes until ctx
// ends.
// ok: detachedctx
func (s *ConfigSource) syncLoopNearMiss(ctx context.Context) error {
	for {
		ws := &WatchSet{}
		svcs, err := s.catalog.Services(ws)
		if err != nil {
			return fmt.Errorf("read catalog: %w", err)
		}
		s.apply(svcs)
		if err := <-ws.WatchCh(ctx); err != nil {
			return err
		}
	}
}

// envKey is the context key under which extra command environment is kept.
type envKey struct{}

// WithEnv returns a context that adds env to the commands built from it.
// ok: detachedctx
func WithEnv(ctx context.Context, env ...string) context.Context {
	prev, _ := ctx.Value(envKey{}).([]string)
	return context.WithValue(ctx, envKey{}, append(append([]string(nil), prev...), env...))
}

// setStandardFields applies the environment, output and logging shared by
// every tool invocation.
// ok: detachedctx
func setStandardFields(ctx context.Context, cmd *exec.Cmd, args ...string) *exec.Cmd {
	cmd.Args = append(cmd.Args, args...)
	env, _ := ctx.Value(envKey{}).([]string)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	log.Printf("exec: %s", strings.Join(cmd.Args, " "))
	return cmd
}

// Command returns a command for the tool at path with the opinionated
// standard fields set from ctx.
// From: einride/sage#397
// bug: detachedctx
func Command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.Command(path)
	return setStandardFields(ctx, cmd, args...)
}

// CommandNearMiss returns a command for the tool at path with the
// opinionated standard fields set from ctx.
// ok: detachedctx
func CommandNearMiss(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path)
	cmd.WaitDelay = 5 * time.Second
	return setStandardFields(ctx, cmd, args...)
}

// GoTest runs the tests of the module in dir.
// ok: detachedctx
func GoTest(ctx context.Context, dir string) error {
	cmd := CommandNearMiss(WithEnv(ctx, "CGO_ENABLED=0"), "go", "test", "./...")
	cmd.Dir = dir
	return cmd.Run()
}

// Peer is a remote RPC endpoint.
type Peer struct {
	hostPort string
	init     func(net.Conn) error
	mu       sync.Mutex
	conns    []net.Conn
}

// NewPeer returns a peer for hostPort that runs init on new connections.
// ok: detachedctx
func NewPeer(hostPort string, init func(net.Conn) error) *Peer {
	return &Peer{hostPort: hostPort, init: init}
}

// addConn remembers c for reuse.
// ok: detachedctx
func (p *Peer) addConn(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

// Connect opens a new connection to the peer and completes the init
// handshake within the deadline of ctx.
// From: uber/tchannel-go#194
// bug: detachedctx
func (p *Peer) Connect(ctx context.Context) (net.Conn, error) {
	conn, err := net.Dial("tcp", p.hostPort)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", p.hostPort, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := p.init(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("init %s: %w", p.hostPort, err)
	}
	_ = conn.SetDeadline(time.Time{})
	p.addConn(conn)
	return conn, nil
}

// ConnectNearMiss opens a new connection to the peer and completes the init
// handshake within the deadline of ctx.
// ok: detachedctx
func (p *Peer) ConnectNearMiss(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", p.hostPort)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", p.hostPort, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			conn.Close()
			return nil, err
		}
	}
	if err := p.init(conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("init %s: %w", p.hostPort, err)
	}
	_ = conn.SetDeadline(time.Time{})
	p.addConn(conn)
	return conn, nil
}

// OperationManager runs the signer pass for every active log at a fixed
// interval.
type OperationManager struct {
	runInterval time.Duration
	logIDs      func(ctx context.Context) ([]int64, error)
	signOne     func(ctx context.Context, logID int64) (int, error)
}

// NewOperationManager returns a manager that runs a pass every interval.
// ok: detachedctx
func NewOperationManager(interval time.Duration, ids func(context.Context) ([]int64, error), sign func(context.Context, int64) (int, error)) *OperationManager {
	return &OperationManager{runInterval: interval, logIDs: ids, signOne: sign}
}

// runPass signs pending leaves of every active log once.
// ok: detachedctx
func (m *OperationManager) runPass(ctx context.Context) {
	ids, err := m.logIDs(ctx)
	if err != nil {
		log.Printf("signer: list logs: %v", err)
		return
	}
	for _, id := range ids {
		n, err := m.signOne(ctx, id)
		if err != nil {
			log.Printf("signer: log %d: %v", id, err)
			continue
		}
		if n > 0 {
			log.Printf("signer: log %d: %d leaves sequenced", id, n)
		}
	}
}

// OperationLoop repeats the signer pass until ctx ends.
// From: google/trillian#1161
// bug: detachedctx
func (m *OperationManager) OperationLoop(ctx context.Context) {
	for {
		start := time.Now()
		m.runPass(ctx)
		if ctx.Err() != nil {
			log.Printf("signer: stopping: %v", ctx.Err())
			return
		}
		if wait := m.runInterval - time.Since(start); wait > 0 {
			time.Sleep(wait)
		}
	}
}

// OperationLoopNearMiss repeats the signer pass until ctx ends.
// ok: detachedctx
func (m *OperationManager) OperationLoopNearMiss(ctx context.Context) {
	for {
		start := time.Now()
		m.runPass(ctx)
		if ctx.Err() != nil {
			log.Printf("signer: stopping: %v", ctx.Err())
			return
		}
		if wait := m.runInterval - time.Since(start); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				log.Printf("signer: stopping: %v", ctx.Err())
				return
			}
		}
	}
}

// Release is one published version of a program.
type Release struct {
	TagName string `json:"tag_name"`
	HTMLURL string `json:"html_url"`
}

// Checker looks up the newest release of a program.
type Checker struct {
	client  *http.Client
	url     string
	current string
}

// NewChecker returns a checker for the releases listed at url.
// ok: detachedctx
func NewChecker(url, current string) *Checker {
	return &Checker{client: &http.Client{Timeout: 10 * time.Second}, url: url, current: current}
}

// decodeReleases reads a release list from resp and closes its body.
// ok: detachedctx
func decodeReleases(resp *http.Response) ([]Release, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("release list: status %s", resp.Status)
	}
	var rels []Release
	err := json.NewDecoder(resp.Body).Decode(&rels)
	return rels, err
}

// Latest returns the newest release if it differs from the running one.
// From: jbowes/whatsnew#9
// bug: detachedctx
func (c *Checker) Latest(ctx context.Context) (*Release, error) {
	req, err := http.NewRequest(http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github.v3+json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	rels, err := decodeReleases(resp)
	if err != nil || len(rels) == 0 || rels[0].TagName == c.current {
		return nil, err
	}
	return &rels[0], nil
}

// LatestNearMiss returns the newest release if it differs from the running
// one.
// ok: detachedctx
func (c *Checker) LatestNearMiss(ctx context.Context) (*Release, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github.v3+json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	rels, err := decodeReleases(resp)
	if err != nil || len(rels) == 0 || rels[0].TagName == c.current {
		return nil, err
	}
	return &rels[0], nil
}

// Post is one board entry.
type Post struct {
	ID    string
	Title string
	Body  string
}

// PostDB stores posts.
type PostDB struct {
	db *sql.DB
}

// NewPostDB returns a store over db.
// ok: detachedctx
func NewPostDB(db *sql.DB) *PostDB {
	return &PostDB{db: db}
}

// upsertPost inserts p or updates the existing row.
// ok: detachedctx
func (s *PostDB) upsertPost(ctx context.Context, p Post) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO post (id, title, body) VALUES (?, ?, ?)
		 ON DUPLICATE KEY UPDATE title = VALUES(title), body = VALUES(body)`,
		p.ID, p.Title, p.Body)
	return err
}

// deletePost removes the post with id and reports whether it existed.
// From: OpenEugene/openboard#122
// bug: detachedctx
func (s *PostDB) deletePost(ctx context.Context, id string) (bool, error) {
	res, err := s.db.Exec(`DELETE FROM post WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("delete post %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// deletePostNearMiss removes the post with id and reports whether it
// existed.
// ok: detachedctx
func (s *PostDB) deletePostNearMiss(ctx context.Context, id string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM post WHERE id = ?`, id)
	if err != nil {
		return false, fmt.Errorf("delete post %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// findPosts returns the posts whose title contains term.
// ok: detachedctx
func (s *PostDB) findPosts(ctx context.Context, term string) ([]Post, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, body FROM post WHERE title LIKE ?`, "%"+term+"%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Post
	for rows.Next() {
		var p Post
		if err := rows.Scan(&p.ID, &p.Title, &p.Body); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// Titles yields the title of every post in id order; iteration stops at
// the first scan error or when ctx ends, and the error is reported through
// errp.
// ok: detachedctx
func (s *PostDB) Titles(ctx context.Context, errp *error) iter.Seq[string] {
	return func(yield func(string) bool) {
		rows, err := s.db.QueryContext(ctx, `SELECT title FROM post ORDER BY id`)
		if err != nil {
			*errp = err
			return
		}
		defer rows.Close()
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				*errp = err
				return
			}
			if !yield(t) {
				return
			}
		}
		*errp = rows.Err()
	}
}

// AuditLog records who changed what.
type AuditLog interface {
	Record(ctx context.Context, actor, action, target string) error
}

// BoardHandler serves the board HTTP API.
type BoardHandler struct {
	posts *PostDB
	audit AuditLog
	wg    sync.WaitGroup
}

// NewBoardHandler returns a handler over posts that reports to audit.
// ok: detachedctx
func NewBoardHandler(posts *PostDB, audit AuditLog) *BoardHandler {
	return &BoardHandler{posts: posts, audit: audit}
}

// ServeHTTP deletes the post named by the id query parameter. The audit
// entry is written after the response has been sent; it keeps the request
// values but deliberately not its cancellation, and it carries its own
// timeout.
// ok: detachedctx
func (h *BoardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.URL.Query().Get("id")
	found, err := h.posts.deletePostNearMiss(ctx, id)
	switch {
	case errors.Is(err, context.Canceled):
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	case !found:
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)

	actor := r.Header.Get("X-User")
	auditCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	h.wg.Go(func() {
		defer cancel()
		if err := h.audit.Record(auditCtx, actor, "delete", id); err != nil {
			log.Printf("audit: %v", err)
		}
	})
}

// Close waits for audit writes still in progress.
// ok: detachedctx
func (h *BoardHandler) Close() { h.wg.Wait() }

// Main is the entry point of the update-check command; it owns the root
// context, which ends on interrupt.
// ok: detachedctx
func Main(url, version string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rel, err := NewChecker(url, version).LatestNearMiss(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "update check:", err)
		return 1
	}
	if rel != nil {
		fmt.Printf("new version %s available: %s\n", rel.TagName, rel.HTMLURL)
	}
	return 0
}

// Heartbeat reports liveness every interval until ctx ends.
// ok: detachedctx
func Heartbeat(ctx context.Context, every time.Duration, beat func(context.Context) error) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			bctx, cancel := context.WithTimeout(ctx, every/2)
			err := beat(bctx)
			cancel()
			if err != nil {
				log.Printf("heartbeat: %v", err)
			}
		}
	}
}
