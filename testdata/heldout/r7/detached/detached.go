// Package detached holds code that already has a caller context but uses
// context.Background() or a context-less API, so deadlines and
// cancellation stop propagating, and the near-misses that pass it through.
package detached

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os/exec"
	"time"

	"heldoutr7/stub"
)

// CommandClient issues device commands through the core-command service.
type CommandClient struct {
	BaseURL string
	HTTP    *http.Client
}

// Issue builds its request with http.NewRequest, which attaches
// context.Background(), and drops the ctx it was given. When the device
// service accepts the connection but never answers, Issue waits forever
// although the caller gave up long ago and returned 503 to its user.
// From: edgexfoundry/go-mod-core-contracts#1060
// bug: detachedctx
func (c *CommandClient) Issue(ctx context.Context, device, command string, body []byte) ([]byte, error) {
	url := c.BaseURL + "/api/v3/device/name/" + device + "/" + command
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("issue %s/%s: %w", device, command, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("issue %s/%s: %s", device, command, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// IssueCtx uses http.NewRequestWithContext with the caller's context.
// ok: detachedctx
func (c *CommandClient) IssueCtx(ctx context.Context, device, command string, body []byte) ([]byte, error) {
	url := c.BaseURL + "/api/v3/device/name/" + device + "/" + command
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("issue %s/%s: %w", device, command, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("issue %s/%s: %s", device, command, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// Publisher writes messages to a stream.
type Publisher struct {
	Stream *stub.Stream
	MaxLen int
}

// Publish appends each message with context.Background() although every
// message carries its producer's context. A handler that times out keeps
// publishing, and the tracing values on the message context never reach
// the stream client.
// From: ThreeDotsLabs/watermill-redisstream#41
// bug: detachedctx
func (p *Publisher) Publish(topic string, msgs ...*stub.Message) error {
	for _, m := range msgs {
		if len(m.Payload) > p.MaxLen {
			return fmt.Errorf("message %s: payload too large (%d bytes)", m.UUID, len(m.Payload))
		}
		if err := p.Stream.XAdd(context.Background(), topic, m.Payload); err != nil {
			return fmt.Errorf("publish %s to %s: %w", m.UUID, topic, err)
		}
		log.Printf("published %s to %s", m.UUID, topic)
	}
	return nil
}

// PublishCtx uses each message's own context for the stream call.
// ok: detachedctx
func (p *Publisher) PublishCtx(topic string, msgs ...*stub.Message) error {
	for _, m := range msgs {
		if len(m.Payload) > p.MaxLen {
			return fmt.Errorf("message %s: payload too large (%d bytes)", m.UUID, len(m.Payload))
		}
		if err := p.Stream.XAdd(m.Context(), topic, m.Payload); err != nil {
			return fmt.Errorf("publish %s to %s: %w", m.UUID, topic, err)
		}
		log.Printf("published %s to %s", m.UUID, topic)
	}
	return nil
}

// Store reads warehouse metadata.
type Store struct {
	DB *sql.DB
}

// TableColumns takes a ctx but queries with db.Query, which runs under
// context.Background(). A schema lookup stuck behind a lock keeps its
// connection and goroutine long after the sync's context was cancelled.
// From: artie-labs/transfer#1238
// bug: detachedctx
func (s *Store) TableColumns(ctx context.Context, schema, table string) ([]string, error) {
	const q = `SELECT column_name FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`
	rows, err := s.DB.Query(q, schema, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s.%s: %w", schema, table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// TableColumnsCtx uses QueryContext with the caller's context.
// ok: detachedctx
func (s *Store) TableColumnsCtx(ctx context.Context, schema, table string) ([]string, error) {
	const q = `SELECT column_name FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`
	rows, err := s.DB.QueryContext(ctx, q, schema, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s.%s: %w", schema, table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// WSConn is a client connection to an exchange server.
type WSConn struct {
	Addr             string
	HandshakeTimeout time.Duration
	Handshake        func(ctx context.Context, conn net.Conn) error
	conn             net.Conn
}

// Connect dials with net.DialTimeout, so cancelling ctx (the user quitting
// the app) cannot stop a dial to an unreachable server; shutdown waits out
// the full handshake timeout.
// From: decred/dcrdex#1567
// bug: detachedctx
func (c *WSConn) Connect(ctx context.Context) error {
	conn, err := net.DialTimeout("tcp", c.Addr, c.HandshakeTimeout)
	if err != nil {
		return fmt.Errorf("dial %s: %w", c.Addr, err)
	}
	if err := c.Handshake(ctx, conn); err != nil {
		conn.Close()
		return fmt.Errorf("handshake %s: %w", c.Addr, err)
	}
	c.conn = conn
	return nil
}

// ConnectCtx dials with a net.Dialer's DialContext under the caller's
// context, keeping the handshake timeout as the dialer's own bound.
// ok: detachedctx
func (c *WSConn) ConnectCtx(ctx context.Context) error {
	d := net.Dialer{Timeout: c.HandshakeTimeout}
	conn, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("dial %s: %w", c.Addr, err)
	}
	if err := c.Handshake(ctx, conn); err != nil {
		conn.Close()
		return fmt.Errorf("handshake %s: %w", c.Addr, err)
	}
	c.conn = conn
	return nil
}

// Task is a build task.
type Task struct {
	Name    string
	Dir     string
	Command string
}

// Result is a finished task run.
type Result struct {
	Output   []byte
	Duration time.Duration
}

// TaskRunner runs build tasks.
type TaskRunner struct{}

// Run takes the build's context but starts the task with exec.Command, so
// when the --timeout deadline passes the shell keeps running to completion
// and the build exceeds its limit.
// From: simplesurance/baur#158
// bug: detachedctx
func (r *TaskRunner) Run(ctx context.Context, t Task) (*Result, error) {
	cmd := exec.Command("sh", "-c", t.Command)
	cmd.Dir = t.Dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("task %s: %w\n%s", t.Name, err, out.Bytes())
	}
	return &Result{Output: out.Bytes(), Duration: time.Since(start)}, nil
}

// RunCtx uses exec.CommandContext, which kills the process when ctx ends.
// ok: detachedctx
func (r *TaskRunner) RunCtx(ctx context.Context, t Task) (*Result, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", t.Command)
	cmd.Dir = t.Dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("task %s: %w\n%s", t.Name, err, out.Bytes())
	}
	return &Result{Output: out.Bytes(), Duration: time.Since(start)}, nil
}

// Server answers changed-target queries.
type Server struct {
	Repo string
	HTTP *http.Server
}

// HandleChanged calls stub.ChangedTargets, which creates its own background
// context. When the client hits Ctrl-C the request context is cancelled,
// but the expensive target computation runs on to completion on the
// server.
// From: uber/tango#28
// bug: detachedctx
func (s *Server) HandleChanged(w http.ResponseWriter, r *http.Request) {
	base := r.URL.Query().Get("base")
	if base == "" {
		http.Error(w, "missing base", http.StatusBadRequest)
		return
	}
	targets, err := stub.ChangedTargets(s.Repo, base)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(targets); err != nil {
		log.Printf("changed targets: write: %v", err)
	}
}

// HandleChangedCtx passes the request context to the context-aware
// variant.
// ok: detachedctx
func (s *Server) HandleChangedCtx(w http.ResponseWriter, r *http.Request) {
	base := r.URL.Query().Get("base")
	if base == "" {
		http.Error(w, "missing base", http.StatusBadRequest)
		return
	}
	targets, err := stub.ChangedTargetsContext(r.Context(), s.Repo, base)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(targets); err != nil {
		log.Printf("changed targets: write: %v", err)
	}
}

// ServeUntil serves until ctx is done and then drains connections. The
// drain uses a fresh Background context with its own grace period, which is
// right: ctx is already cancelled at that point, so deriving from it would
// abort the graceful shutdown immediately.
// ok: detachedctx
func (s *Server) ServeUntil(ctx context.Context, ln net.Listener, grace time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- s.HTTP.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := s.HTTP.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-errc
	return nil
}

// Ledger moves money between accounts.
type Ledger struct {
	Reserve func(ctx context.Context, account string, cents int64) (string, error)
	Commit  func(ctx context.Context, hold string) error
	Release func(ctx context.Context, hold string) error
}

// Charge reserves and then commits. If the commit fails because the
// caller's context ended, the compensating release must still run, so it
// uses context.WithoutCancel (keeping request values) with its own
// timeout; the forward path uses ctx throughout.
// ok: detachedctx
func (l *Ledger) Charge(ctx context.Context, account string, cents int64) error {
	hold, err := l.Reserve(ctx, account, cents)
	if err != nil {
		return fmt.Errorf("reserve: %w", err)
	}
	if err := l.Commit(ctx, hold); err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if rerr := l.Release(rctx, hold); rerr != nil {
			log.Printf("release hold %s: %v", hold, rerr)
		}
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
