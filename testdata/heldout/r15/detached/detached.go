// Package detached holds code that already has a caller context but starts
// from context.Background/TODO or calls a context-less API, so deadlines and
// cancellation stop propagating.
package detached

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Crawl queue finisher.

// Batch is a set of finished URLs.
type Batch struct {
	URLs []string
}

// QueueClient talks to the crawl queue service.
type QueueClient interface {
	Delete(ctx context.Context, urls []string, bypassSeencheck bool) error
}

// Finisher acknowledges finished URLs to the queue.
type Finisher struct {
	client  QueueClient
	batches <-chan Batch
}

// Run acknowledges batches until its context ends. Each Delete is issued
// with context.TODO(), so a crawler shutting down still waits on slow queue
// calls that no longer matter.
// From: internetarchive/Zeno#472
// bug: detachedctx
func (f *Finisher) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case b, ok := <-f.batches:
			if !ok {
				return nil
			}
			if err := f.client.Delete(context.TODO(), b.URLs, false); err != nil {
				return fmt.Errorf("finisher: delete %d urls: %w", len(b.URLs), err)
			}
		}
	}
}

// RunNearMiss passes the finisher's context to the queue client.
// ok: detachedctx
func (f *Finisher) RunNearMiss(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case b, ok := <-f.batches:
			if !ok {
				return nil
			}
			if err := f.client.Delete(ctx, b.URLs, false); err != nil {
				return fmt.Errorf("finisher: delete %d urls: %w", len(b.URLs), err)
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Troubleshooting bundle collector.

// Pod is a minimal pod record.
type Pod struct {
	Namespace, Name string
	Labels          map[string]string
}

// PodLister lists pods from the API server.
type PodLister interface {
	List(ctx context.Context, namespace string) ([]Pod, error)
}

// listPods lists pods matching selector in namespace.
// ok: detachedctx
func listPods(ctx context.Context, c PodLister, namespace string, selector map[string]string) ([]Pod, error) {
	all, err := c.List(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var out []Pod
	for _, p := range all {
		match := true
		for k, v := range selector {
			if p.Labels[k] != v {
				match = false
				break
			}
		}
		if match {
			out = append(out, p)
		}
	}
	return out, nil
}

// ConfigDump collects proxy config dumps for a troubleshooting bundle.
type ConfigDump struct {
	Client    PodLister
	Namespace string
	Fetch     func(ctx context.Context, p Pod) ([]byte, error)
}

// Collect gathers config dumps from every proxy pod. The pod listing uses
// context.TODO(), so a bundle collection the user has cancelled still waits
// on a slow API server.
// From: envoyproxy/gateway#8121
// bug: detachedctx
func (cd ConfigDump) Collect(ctx context.Context) (map[string][]byte, error) {
	pods, err := listPods(context.TODO(), cd.Client, cd.Namespace, map[string]string{"app.kubernetes.io/component": "proxy"})
	if err != nil {
		return nil, fmt.Errorf("list proxy pods: %w", err)
	}
	out := make(map[string][]byte, len(pods))
	for _, p := range pods {
		b, err := cd.Fetch(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("config dump %s/%s: %w", p.Namespace, p.Name, err)
		}
		out[p.Namespace+"/"+p.Name] = b
	}
	return out, nil
}

// CollectNearMiss lists pods under the caller's context.
// ok: detachedctx
func (cd ConfigDump) CollectNearMiss(ctx context.Context) (map[string][]byte, error) {
	pods, err := listPods(ctx, cd.Client, cd.Namespace, map[string]string{"app.kubernetes.io/component": "proxy"})
	if err != nil {
		return nil, fmt.Errorf("list proxy pods: %w", err)
	}
	out := make(map[string][]byte, len(pods))
	for _, p := range pods {
		b, err := cd.Fetch(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("config dump %s/%s: %w", p.Namespace, p.Name, err)
		}
		out[p.Namespace+"/"+p.Name] = b
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Remote execution client background uploads.

// UploadRequest is a blob to upload.
type UploadRequest struct {
	Digest string
	Data   []byte
}

// CASClient is a content-addressed storage client with background uploaders.
type CASClient struct {
	upload   func(ctx context.Context, req UploadRequest) error
	requests chan UploadRequest
	closing  chan struct{}
	wg       sync.WaitGroup
	errMu    sync.Mutex
	errs     []error
}

// uploader serves upload requests until closing is closed.
// ok: detachedctx
func (c *CASClient) uploader(ctx context.Context) {
	defer c.wg.Done()
	for {
		select {
		case <-c.closing:
			return
		case <-ctx.Done():
			return
		case req := <-c.requests:
			if err := c.upload(ctx, req); err != nil {
				c.errMu.Lock()
				c.errs = append(c.errs, fmt.Errorf("upload %s: %w", req.Digest, err))
				c.errMu.Unlock()
			}
		}
	}
}

// RunBackgroundTasks starts the uploaders. It is handed the client's
// context but starts them on context.Background(), so the caller cannot
// cancel uploads or give them a deadline, and tracing values are lost.
// From: bazelbuild/remote-apis-sdks#455
// bug: detachedctx
func (c *CASClient) RunBackgroundTasks(ctx context.Context, n int) {
	for i := 0; i < n; i++ {
		c.wg.Add(1)
		go c.uploader(context.Background())
	}
}

// RunBackgroundTasksNearMiss hands the caller's context to the uploaders.
// ok: detachedctx
func (c *CASClient) RunBackgroundTasksNearMiss(ctx context.Context, n int) {
	for i := 0; i < n; i++ {
		c.wg.Add(1)
		go c.uploader(ctx)
	}
}

// Close stops the uploaders, waits for them, and reports their errors.
// ok: detachedctx
func (c *CASClient) Close() error {
	close(c.closing)
	c.wg.Wait()
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return errors.Join(c.errs...)
}

// ---------------------------------------------------------------------------
// Multiaddr dialer.

// Multiaddr is a self-describing network address such as /ip4/1.2.3.4/tcp/80.
type Multiaddr string

// toNetAddr converts a multiaddr into a Go network and address.
// ok: detachedctx
func toNetAddr(m Multiaddr) (network, addr string, err error) {
	parts := strings.Split(strings.TrimPrefix(string(m), "/"), "/")
	if len(parts) != 4 || (parts[0] != "ip4" && parts[0] != "ip6") || (parts[2] != "tcp" && parts[2] != "udp") {
		return "", "", fmt.Errorf("unsupported multiaddr %q", m)
	}
	return parts[2], net.JoinHostPort(parts[1], parts[3]), nil
}

// MaDialer dials multiaddrs.
type MaDialer struct {
	LocalAddr Multiaddr
}

// DialContext dials remote. It ignores ctx and uses net.Dial, so a dial to a
// black-holed peer holds its file descriptor until the kernel gives up, long
// after the caller has cancelled.
// From: multiformats/go-multiaddr-net#20
// bug: detachedctx
func (d *MaDialer) DialContext(ctx context.Context, remote Multiaddr) (net.Conn, error) {
	network, addr, err := toNetAddr(remote)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial(network, addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", remote, err)
	}
	return conn, nil
}

// DialContextNearMiss dials with net.Dialer.DialContext.
// ok: detachedctx
func (d *MaDialer) DialContextNearMiss(ctx context.Context, remote Multiaddr) (net.Conn, error) {
	network, addr, err := toNetAddr(remote)
	if err != nil {
		return nil, err
	}
	var nd net.Dialer
	conn, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", remote, err)
	}
	return conn, nil
}

// ---------------------------------------------------------------------------
// Capsule readiness probe.

// Capsule is a sandbox running its own dockerd.
type Capsule struct {
	Socket   string
	Interval time.Duration
}

// WaitDockerd polls dockerd until it answers or ctx ends. Each probe runs
// through exec.Command with no context, so a wedged dockerd hangs the probe
// (and the caller) regardless of the deadline.
// From: rhobuild/runpool#37
// bug: detachedctx
func (c *Capsule) WaitDockerd(ctx context.Context) error {
	ticker := time.NewTicker(c.Interval)
	defer ticker.Stop()
	for {
		err := exec.Command("docker", "-H", "unix://"+c.Socket, "info", "--format", "{{.ServerVersion}}").Run()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dockerd not ready: %w", errors.Join(ctx.Err(), err))
		case <-ticker.C:
		}
	}
}

// WaitDockerdNearMiss runs each probe with exec.CommandContext.
// ok: detachedctx
func (c *Capsule) WaitDockerdNearMiss(ctx context.Context) error {
	ticker := time.NewTicker(c.Interval)
	defer ticker.Stop()
	for {
		err := exec.CommandContext(ctx, "docker", "-H", "unix://"+c.Socket, "info", "--format", "{{.ServerVersion}}").Run()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dockerd not ready: %w", errors.Join(ctx.Err(), err))
		case <-ticker.C:
		}
	}
}

// ---------------------------------------------------------------------------
// Table rotation migrator.

// Migrator applies rotation scripts inside a transaction.
type Migrator struct {
	db *sql.DB
}

// Rotate runs the rotation script for table and records it. The script is
// run with tx.Exec, which uses context.Background() underneath, so a
// cancelled or timed-out migration keeps the DDL running.
// From: yaitoo/sqle#83
// bug: detachedctx
func (m *Migrator) Rotate(ctx context.Context, table, script string) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin rotation of %s: %w", table, err)
	}
	defer tx.Rollback()

	if _, err := tx.Exec(script); err != nil {
		return fmt.Errorf("rotate %s: %w", table, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO sqle_rotations(table_name, rotated_at) VALUES(?, ?)", table, time.Now().UTC()); err != nil {
		return fmt.Errorf("record rotation of %s: %w", table, err)
	}
	return tx.Commit()
}

// RotateNearMiss runs the script with ExecContext.
// ok: detachedctx
func (m *Migrator) RotateNearMiss(ctx context.Context, table, script string) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin rotation of %s: %w", table, err)
	}
	defer tx.Rollback()

	if _, err := tx.ExecContext(ctx, script); err != nil {
		return fmt.Errorf("rotate %s: %w", table, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO sqle_rotations(table_name, rotated_at) VALUES(?, ?)", table, time.Now().UTC()); err != nil {
		return fmt.Errorf("record rotation of %s: %w", table, err)
	}
	return tx.Commit()
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// RootContext is the program's root context: there is no caller context to
// inherit from, so starting from Background is right.
// ok: detachedctx
func RootContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// Locker is a distributed lock.
type Locker interface {
	Unlock(ctx context.Context, key string) error
}

// WithLock runs fn while holding key. The unlock must run even when the
// request was cancelled, so it keeps the request's values but not its
// cancellation, and bounds itself with its own timeout.
// ok: detachedctx
func WithLock(ctx context.Context, l Locker, key string, lock func(context.Context, string) error, fn func(context.Context) error) (err error) {
	if err := lock(ctx, key); err != nil {
		return fmt.Errorf("lock %s: %w", key, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if uerr := l.Unlock(uctx, key); uerr != nil && err == nil {
			err = fmt.Errorf("unlock %s: %w", key, uerr)
		}
	}()
	return fn(ctx)
}

// LookupHost resolves name with the caller's context.
// ok: detachedctx
func LookupHost(ctx context.Context, name string) ([]string, error) {
	var r net.Resolver
	return r.LookupHost(ctx, name)
}
