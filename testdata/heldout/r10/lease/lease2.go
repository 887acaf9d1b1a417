package lease

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ---------------------------------------------------------------------------
// Constructors that own what they open.

// RPCConn is a client connection to the workflow frontend.
type RPCConn interface {
	CheckHealth(ctx context.Context) error
	Invoke(ctx context.Context, method string, req, resp any) error
	Close() error
}

// RPCDialer opens frontend connections.
type RPCDialer interface {
	Dial(ctx context.Context, target string) (RPCConn, error)
}

// ClientOptions configure NewWorkflowClient.
type ClientOptions struct {
	Dialer        RPCDialer
	HostPort      string
	Namespace     string
	HealthTimeout time.Duration
}

// WorkflowClient owns its frontend connection.
type WorkflowClient struct {
	conn      RPCConn
	namespace string
}

// Close releases the client's connection.
// ok: leaseleak
func (c *WorkflowClient) Close() error {
	return c.conn.Close()
}

// NewWorkflowClient dials the frontend and checks that it is serving before returning a client.
// From: temporalio/sdk-go#430
// bug: leaseleak
func NewWorkflowClient(ctx context.Context, opts ClientOptions) (*WorkflowClient, error) {
	if opts.Namespace == "" {
		return nil, errors.New("namespace is required")
	}
	conn, err := opts.Dialer.Dial(ctx, opts.HostPort)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", opts.HostPort, err)
	}
	hctx, cancel := context.WithTimeout(ctx, opts.HealthTimeout)
	defer cancel()
	if err := conn.CheckHealth(hctx); err != nil {
		return nil, fmt.Errorf("health check %s: %w", opts.HostPort, err)
	}
	return &WorkflowClient{conn: conn, namespace: opts.Namespace}, nil
}

// NewWorkflowClientNearMiss dials the frontend and checks that it is serving
// before returning a client, which then owns the connection.
// ok: leaseleak
func NewWorkflowClientNearMiss(ctx context.Context, opts ClientOptions) (*WorkflowClient, error) {
	if opts.Namespace == "" {
		return nil, errors.New("namespace is required")
	}
	conn, err := opts.Dialer.Dial(ctx, opts.HostPort)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", opts.HostPort, err)
	}
	hctx, cancel := context.WithTimeout(ctx, opts.HealthTimeout)
	defer cancel()
	if err := conn.CheckHealth(hctx); err != nil {
		if cerr := conn.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, fmt.Errorf("health check %s: %w", opts.HostPort, err)
	}
	return &WorkflowClient{conn: conn, namespace: opts.Namespace}, nil
}

// InputDevice is an open input device node.
type InputDevice struct {
	path    string
	file    *os.File
	version int32
	name    string
}

// ok: leaseleak
func readVersion(f *os.File) (int32, error) {
	var buf [4]byte
	if _, err := f.ReadAt(buf[:], 0); err != nil {
		return 0, err
	}
	return int32(buf[0]) | int32(buf[1])<<8 | int32(buf[2])<<16 | int32(buf[3])<<24, nil
}

// ok: leaseleak
func readName(f *os.File) (string, error) {
	buf := make([]byte, 256)
	n, err := f.ReadAt(buf, 4)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	for i := 0; i < n; i++ {
		if buf[i] == 0 {
			return string(buf[:i]), nil
		}
	}
	return string(buf[:n]), nil
}

// Close closes the device node.
// ok: leaseleak
func (d *InputDevice) Close() error {
	return d.file.Close()
}

// OpenDevice opens the input device node at path and reads its driver version and name.
// From: holoplot/go-evdev#10
// bug: leaseleak
func OpenDevice(path string) (*InputDevice, error) {
	d := &InputDevice{path: path}
	var err error
	d.file, err = os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	d.version, err = readVersion(d.file)
	if err != nil {
		return nil, fmt.Errorf("read driver version of %s: %w", path, err)
	}
	d.name, err = readName(d.file)
	if err != nil {
		d.file.Close()
		return nil, fmt.Errorf("read name of %s: %w", path, err)
	}
	return d, nil
}

// OpenDeviceNearMiss opens the input device node at path and reads its driver
// version and name; the file is closed on every failure after the open.
// ok: leaseleak
func OpenDeviceNearMiss(path string) (dev *InputDevice, err error) {
	d := &InputDevice{path: path}
	d.file, err = os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			d.file.Close()
		}
	}()
	d.version, err = readVersion(d.file)
	if err != nil {
		return nil, fmt.Errorf("read driver version of %s: %w", path, err)
	}
	d.name, err = readName(d.file)
	if err != nil {
		return nil, fmt.Errorf("read name of %s: %w", path, err)
	}
	ok = true
	return d, nil
}

// ---------------------------------------------------------------------------
// Loops that open things.

// ResourceManager reads resource files from a directory.
type ResourceManager struct {
	dir string
}

// LoadResources reads every named resource file and returns its checksum.
// From: milvus-io/milvus#48353
// bug: leaseleak
func (m *ResourceManager) LoadResources(ctx context.Context, names []string) (map[string]string, error) {
	sums := make(map[string]string, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(m.dir, name))
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", name, err)
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return nil, fmt.Errorf("hash %s: %w", name, err)
		}
		sums[name] = hex.EncodeToString(h.Sum(nil))
	}
	return sums, nil
}

// LoadResourcesNearMiss reads every named resource file and returns its checksum.
// ok: leaseleak
func (m *ResourceManager) LoadResourcesNearMiss(ctx context.Context, names []string) (map[string]string, error) {
	sums := make(map[string]string, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sum, err := func() (string, error) {
			f, err := os.Open(filepath.Join(m.dir, name))
			if err != nil {
				return "", fmt.Errorf("open %s: %w", name, err)
			}
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				return "", fmt.Errorf("hash %s: %w", name, err)
			}
			return hex.EncodeToString(h.Sum(nil)), nil
		}()
		if err != nil {
			return nil, err
		}
		sums[name] = sum
	}
	return sums, nil
}

// BlobPutter stores a stream under a name.
type BlobPutter interface {
	Put(ctx context.Context, name string, r io.Reader) (int64, error)
}

// ArtifactDownloader copies artifacts from URLs into a blob store.
type ArtifactDownloader struct {
	hc    *http.Client
	store BlobPutter
}

// DownloadAll fetches each artifact URL and stores its body under the URL's base name.
// From: aws/copilot-cli#4534
// bug: leaseleak
func (d *ArtifactDownloader) DownloadAll(ctx context.Context, urls []string) (int64, error) {
	var total int64
	for _, u := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return total, err
		}
		resp, err := d.hc.Do(req)
		if err != nil {
			return total, fmt.Errorf("get %s: %w", u, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return total, fmt.Errorf("get %s: %s", u, resp.Status)
		}
		n, err := d.store.Put(ctx, path.Base(u), resp.Body)
		if err != nil {
			return total, fmt.Errorf("store %s: %w", u, err)
		}
		total += n
	}
	return total, nil
}

// ok: leaseleak
func (d *ArtifactDownloader) downloadOne(ctx context.Context, u string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("get %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("get %s: %s", u, resp.Status)
	}
	n, err := d.store.Put(ctx, path.Base(u), resp.Body)
	if err != nil {
		return 0, fmt.Errorf("store %s: %w", u, err)
	}
	return n, nil
}

// DownloadAllNearMiss fetches each artifact URL and stores its body under the URL's base name.
// ok: leaseleak
func (d *ArtifactDownloader) DownloadAllNearMiss(ctx context.Context, urls []string) (int64, error) {
	var total int64
	for _, u := range urls {
		n, err := d.downloadOne(ctx, u)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// ---------------------------------------------------------------------------
// Statements and transactions.

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// VisibilityRow is one workflow visibility record.
type VisibilityRow struct {
	WorkflowID string
	RunID      string
	Status     int
	StartTime  time.Time
}

// VisibilityStore reads workflow visibility records.
type VisibilityStore struct {
	db *sql.DB
}

// GetFromVisibility loads the visibility record of one workflow run.
// From: temporalio/temporal#10392
// bug: leaseleak
func (v *VisibilityStore) GetFromVisibility(ctx context.Context, nsID, runID string) (*VisibilityRow, error) {
	stmt, err := v.db.PrepareContext(ctx, `SELECT workflow_id, status, start_time FROM executions_visibility WHERE namespace_id = $1 AND run_id = $2`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	var row VisibilityRow
	if err := stmt.QueryRowContext(ctx, nsID, runID).Scan(&row.WorkflowID, &row.Status, &row.StartTime); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("query: %w", err)
	}
	row.RunID = runID
	return &row, nil
}

// GetFromVisibilityNearMiss loads the visibility record of one workflow run.
// ok: leaseleak
func (v *VisibilityStore) GetFromVisibilityNearMiss(ctx context.Context, nsID, runID string) (*VisibilityRow, error) {
	stmt, err := v.db.PrepareContext(ctx, `SELECT workflow_id, status, start_time FROM executions_visibility WHERE namespace_id = $1 AND run_id = $2`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	var row VisibilityRow
	if err := stmt.QueryRowContext(ctx, nsID, runID).Scan(&row.WorkflowID, &row.Status, &row.StartTime); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("query: %w", err)
	}
	row.RunID = runID
	return &row, nil
}

// ArchiveRuns moves runs into the archive inside one transaction. The
// statement is prepared on the transaction, so Commit or Rollback closes it.
// ok: leaseleak
func (v *VisibilityStore) ArchiveRuns(ctx context.Context, runIDs []string) error {
	tx, err := v.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE executions_visibility SET archived = true WHERE run_id = $1`)
	if err != nil {
		return errors.Join(fmt.Errorf("prepare: %w", err), tx.Rollback())
	}
	for _, id := range runIDs {
		if _, err := stmt.ExecContext(ctx, id); err != nil {
			return errors.Join(fmt.Errorf("archive %s: %w", id, err), tx.Rollback())
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Event is one row of the event log.
type Event struct {
	ID      string
	Kind    string
	Payload []byte
}

// EventWriter appends events.
type EventWriter struct {
	db *sql.DB
}

// InsertBatch inserts the events through one prepared statement.
// From: marcboeker/go-duckdb#307
// bug: leaseleak
func (w *EventWriter) InsertBatch(ctx context.Context, events []Event) error {
	stmt, err := w.db.PrepareContext(ctx, `INSERT INTO events (id, kind, payload) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	for _, e := range events {
		if _, err := stmt.ExecContext(ctx, e.ID, e.Kind, e.Payload); err != nil {
			return fmt.Errorf("insert %s: %w", e.ID, err)
		}
	}
	return stmt.Close()
}

// InsertBatchNearMiss inserts the events through one prepared statement.
// ok: leaseleak
func (w *EventWriter) InsertBatchNearMiss(ctx context.Context, events []Event) error {
	stmt, err := w.db.PrepareContext(ctx, `INSERT INTO events (id, kind, payload) VALUES (?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("prepare insert: %w", err)
	}
	for _, e := range events {
		if _, err := stmt.ExecContext(ctx, e.ID, e.Kind, e.Payload); err != nil {
			return errors.Join(fmt.Errorf("insert %s: %w", e.ID, err), stmt.Close())
		}
	}
	return stmt.Close()
}

// Thing is a registered device.
type Thing struct {
	ID       string
	Owner    string
	Name     string
	Metadata map[string]any
}

// ThingRepo stores things.
type ThingRepo struct {
	db *sql.DB
}

// SaveThings inserts the things and their metadata in one transaction.
// From: MainfluxLabs/mainflux#859
// bug: leaseleak
func (r *ThingRepo) SaveThings(ctx context.Context, things []Thing) ([]Thing, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	for _, t := range things {
		if _, err := tx.ExecContext(ctx, `INSERT INTO things (id, owner, name) VALUES ($1, $2, $3)`, t.ID, t.Owner, t.Name); err != nil {
			return nil, errors.Join(fmt.Errorf("insert thing %s: %w", t.ID, err), tx.Rollback())
		}
		meta, err := json.Marshal(t.Metadata)
		if err != nil {
			return nil, fmt.Errorf("marshal metadata of %s: %w", t.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE things SET metadata = $1 WHERE id = $2`, meta, t.ID); err != nil {
			return nil, errors.Join(fmt.Errorf("update metadata of %s: %w", t.ID, err), tx.Rollback())
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return things, nil
}

// SaveThingsNearMiss inserts the things and their metadata in one transaction.
// ok: leaseleak
func (r *ThingRepo) SaveThingsNearMiss(ctx context.Context, things []Thing) (_ []Thing, err error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
				err = errors.Join(err, rbErr)
			}
		}
	}()
	for _, t := range things {
		if _, err := tx.ExecContext(ctx, `INSERT INTO things (id, owner, name) VALUES ($1, $2, $3)`, t.ID, t.Owner, t.Name); err != nil {
			return nil, fmt.Errorf("insert thing %s: %w", t.ID, err)
		}
		meta, err := json.Marshal(t.Metadata)
		if err != nil {
			return nil, fmt.Errorf("marshal metadata of %s: %w", t.ID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE things SET metadata = $1 WHERE id = $2`, meta, t.ID); err != nil {
			return nil, fmt.Errorf("update metadata of %s: %w", t.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	committed = true
	return things, nil
}

// ---------------------------------------------------------------------------
// Pools, semaphores and leases.

// PooledConn is a connection checked out of a ConnPool.
type PooledConn interface {
	Write(ctx context.Context, code byte, msg []byte) error
	Read(ctx context.Context) ([]byte, error)
}

// ConnPool hands out connections; every Acquire must be matched by Release
// (the connection is reusable) or Discard (it is broken).
type ConnPool interface {
	Acquire(ctx context.Context) (PooledConn, error)
	Release(c PooledConn)
	Discard(c PooledConn)
}

// RiakClient sends protocol-buffer requests over pooled connections.
type RiakClient struct {
	pool ConnPool
}

// request sends msg on a pooled connection and waits for the reply.
// From: tpjg/goriakpbc#102
// bug: leaseleak
func (c *RiakClient) request(ctx context.Context, code byte, msg []byte) ([]byte, error) {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	if err := conn.Write(ctx, code, msg); err != nil {
		return nil, fmt.Errorf("write request %d: %w", code, err)
	}
	reply, err := conn.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read reply to %d: %w", code, err)
	}
	c.pool.Release(conn)
	return reply, nil
}

// requestNearMiss sends msg on a pooled connection and waits for the reply.
// ok: leaseleak
func (c *RiakClient) requestNearMiss(ctx context.Context, code byte, msg []byte) ([]byte, error) {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	if err := conn.Write(ctx, code, msg); err != nil {
		c.pool.Discard(conn)
		return nil, fmt.Errorf("write request %d: %w", code, err)
	}
	reply, err := conn.Read(ctx)
	if err != nil {
		c.pool.Discard(conn)
		return nil, fmt.Errorf("read reply to %d: %w", code, err)
	}
	c.pool.Release(conn)
	return reply, nil
}

// packet is a pooled receive buffer.
type packet struct {
	data []byte
}

// PacketPool recycles receive buffers; Get must be matched by Put.
type PacketPool struct {
	p    sync.Pool
	size int
}

// Get returns an empty buffer of the pool's size.
// ok: leaseleak
func (pp *PacketPool) Get() *packet {
	if v, ok := pp.p.Get().(*packet); ok {
		v.data = v.data[:0]
		return v
	}
	return &packet{data: make([]byte, 0, pp.size)}
}

// Put returns b to the pool.
// ok: leaseleak
func (pp *PacketPool) Put(b *packet) {
	pp.p.Put(b)
}

// PacketReader reads one datagram.
type PacketReader interface {
	Read(b []byte) (int, error)
}

// ErrQueueFull is returned when the processing queue has no room.
var ErrQueueFull = errors.New("processing queue full")

// UDPServer receives spans over UDP; the processor that receives from queue
// puts each buffer back when it is done with it.
type UDPServer struct {
	conn    PacketReader
	bufPool *PacketPool
	queue   chan *packet
	dropped atomic.Int64
}

// readPacket reads one datagram into a pooled buffer and queues it for processing.
// From: jaegertracing/jaeger#2609
// bug: leaseleak
func (s *UDPServer) readPacket(ctx context.Context) error {
	buf := s.bufPool.Get()
	n, err := s.conn.Read(buf.data[:cap(buf.data)])
	if err != nil {
		return fmt.Errorf("read packet: %w", err)
	}
	buf.data = buf.data[:n]
	select {
	case s.queue <- buf:
		return nil
	case <-ctx.Done():
		s.bufPool.Put(buf)
		return ctx.Err()
	default:
		s.bufPool.Put(buf)
		s.dropped.Add(1)
		return ErrQueueFull
	}
}

// readPacketNearMiss reads one datagram into a pooled buffer and queues it for processing.
// ok: leaseleak
func (s *UDPServer) readPacketNearMiss(ctx context.Context) error {
	buf := s.bufPool.Get()
	n, err := s.conn.Read(buf.data[:cap(buf.data)])
	if err != nil {
		s.bufPool.Put(buf)
		return fmt.Errorf("read packet: %w", err)
	}
	buf.data = buf.data[:n]
	select {
	case s.queue <- buf:
		return nil
	case <-ctx.Done():
		s.bufPool.Put(buf)
		return ctx.Err()
	default:
		s.bufPool.Put(buf)
		s.dropped.Add(1)
		return ErrQueueFull
	}
}

// DistLock is a distributed lock backed by a session lease. Close ends the
// session (and its keepalive); Unlock only gives up the key.
type DistLock interface {
	Lock(ctx context.Context) (context.Context, error)
	Unlock(ctx context.Context) error
	Close() error
}

// LockStore creates distributed locks.
type LockStore interface {
	CreateLock(key string, ttl time.Duration) (DistLock, error)
}

// Cluster coordinates work on nodes.
type Cluster struct {
	store   LockStore
	lockTTL time.Duration
}

// lockNode creates the lock for node and takes it. The held lock is returned
// to the caller, who unlocks and closes it.
// From: projecteru2/core#399
// bug: leaseleak
func (c *Cluster) lockNode(ctx context.Context, node string) (DistLock, context.Context, error) {
	lock, err := c.store.CreateLock("node/"+node, c.lockTTL)
	if err != nil {
		return nil, nil, fmt.Errorf("create lock for %s: %w", node, err)
	}
	lctx, err := lock.Lock(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", node, err)
	}
	return lock, lctx, nil
}

// lockNodeNearMiss creates the lock for node and takes it. The held lock is
// returned to the caller, who unlocks and closes it.
// ok: leaseleak
func (c *Cluster) lockNodeNearMiss(ctx context.Context, node string) (DistLock, context.Context, error) {
	lock, err := c.store.CreateLock("node/"+node, c.lockTTL)
	if err != nil {
		return nil, nil, fmt.Errorf("create lock for %s: %w", node, err)
	}
	lctx, err := lock.Lock(ctx)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("lock %s: %w", node, err), lock.Close())
	}
	return lock, lctx, nil
}

// ReadEnv opens read transactions.
type ReadEnv interface {
	BeginRead() (ReadTxn, error)
}

// ReadTxn is an open read transaction.
type ReadTxn interface {
	Get(bucket, key []byte) ([]byte, error)
	Abort()
}

// KVStore limits concurrent readers with a slot channel.
type KVStore struct {
	env     ReadEnv
	roSlots chan struct{}
}

// RoTx is a read transaction holding one reader slot.
type RoTx struct {
	tx      ReadTxn
	release func()
	once    sync.Once
}

// Rollback aborts the transaction and frees its reader slot.
// ok: leaseleak
func (t *RoTx) Rollback() {
	t.once.Do(func() {
		t.tx.Abort()
		t.release()
	})
}

// BeginRo takes a reader slot and opens a read-only transaction in it; the
// slot is freed by the transaction's Rollback.
// From: ledgerwatch/erigon-lib#566
// bug: leaseleak
func (db *KVStore) BeginRo(ctx context.Context) (*RoTx, error) {
	select {
	case db.roSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tx, err := db.env.BeginRead()
	if err != nil {
		return nil, fmt.Errorf("begin read tx: %w", err)
	}
	return &RoTx{tx: tx, release: func() { <-db.roSlots }}, nil
}

// BeginRoNearMiss takes a reader slot and opens a read-only transaction in
// it; the slot is freed by the transaction's Rollback.
// ok: leaseleak
func (db *KVStore) BeginRoNearMiss(ctx context.Context) (*RoTx, error) {
	select {
	case db.roSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tx, err := db.env.BeginRead()
	if err != nil {
		<-db.roSlots
		return nil, fmt.Errorf("begin read tx: %w", err)
	}
	return &RoTx{tx: tx, release: func() { <-db.roSlots }}, nil
}

// Executor runs jobs and calls done when each one finishes.
type Executor interface {
	Submit(job func(), done func()) error
}

// BoundedRunner caps the number of jobs in flight with a slot channel.
type BoundedRunner struct {
	exec  Executor
	slots chan struct{}
}

// Go waits for a free slot and submits job; the slot is handed to the
// executor's completion callback, or freed here if the submit is refused.
// ok: leaseleak
func (r *BoundedRunner) Go(ctx context.Context, job func()) error {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	release := func() { <-r.slots }
	if err := r.exec.Submit(job, release); err != nil {
		release()
		return fmt.Errorf("submit: %w", err)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Registries.

// BackendSession is a session with a backend client.
type BackendSession interface {
	LastUsed() time.Time
	Close() error
}

// SessionStore keeps sessions by id.
type SessionStore struct {
	mu       sync.Mutex
	sessions map[string]BackendSession
	ttl      time.Duration
}

// Cleanup drops every session idle for longer than the TTL and reports how many it dropped.
// From: stacklok/toolhive#4014
// bug: leaseleak
func (s *SessionStore) Cleanup(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := 0
	for id, sess := range s.sessions {
		if now.Sub(sess.LastUsed()) < s.ttl {
			continue
		}
		delete(s.sessions, id)
		removed++
	}
	return removed
}

// CleanupNearMiss drops every session idle for longer than the TTL, closes
// it, and reports how many it dropped.
// ok: leaseleak
func (s *SessionStore) CleanupNearMiss(now time.Time) (int, error) {
	s.mu.Lock()
	var expired []BackendSession
	for id, sess := range s.sessions {
		if now.Sub(sess.LastUsed()) < s.ttl {
			continue
		}
		delete(s.sessions, id)
		expired = append(expired, sess)
	}
	s.mu.Unlock()
	var errs []error
	for _, sess := range expired {
		if err := sess.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return len(expired), errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Tracing.

// Span is one traced operation.
type Span struct {
	name  string
	start time.Time
	attrs map[string]string
	err   error
	ended atomic.Bool
	sink  func(name string, d time.Duration, attrs map[string]string, err error)
}

// SetAttr records an attribute on the span.
// ok: leaseleak
func (s *Span) SetAttr(k, v string) {
	s.attrs[k] = v
}

// RecordError marks the span as failed.
// ok: leaseleak
func (s *Span) RecordError(err error) {
	s.err = err
}

// End finishes the span and reports it; later calls do nothing.
// ok: leaseleak
func (s *Span) End() {
	if s.ended.Swap(true) {
		return
	}
	s.sink(s.name, time.Since(s.start), s.attrs, s.err)
}

// Tracer starts spans.
type Tracer struct {
	sink func(name string, d time.Duration, attrs map[string]string, err error)
}

// Start begins a span named name.
// ok: leaseleak
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, *Span) {
	return ctx, &Span{name: name, start: time.Now(), attrs: map[string]string{}, sink: t.sink}
}

// Symbol is a code symbol.
type Symbol struct {
	Name string
	Line int
}

// SymbolIndex looks symbols up.
type SymbolIndex interface {
	Lookup(ctx context.Context, repo, commit, path string) ([]Symbol, error)
}

// ErrEmptyPath is returned for lookups without a path.
var ErrEmptyPath = errors.New("empty path")

// SymbolService answers symbol queries.
type SymbolService struct {
	tracer *Tracer
	index  SymbolIndex
}

// SymbolsAt returns the symbols defined in path at commit, traced as one operation.
// From: sourcegraph/sourcegraph-public-snapshot#64150
// bug: leaseleak
func (s *SymbolService) SymbolsAt(ctx context.Context, repo, commit, path string) ([]Symbol, error) {
	ctx, span := s.tracer.Start(ctx, "symbols.at")
	span.SetAttr("repo", repo)
	span.SetAttr("commit", commit)
	if path == "" {
		return nil, ErrEmptyPath
	}
	syms, err := s.index.Lookup(ctx, repo, commit, path)
	if err != nil {
		span.RecordError(err)
		span.End()
		return nil, fmt.Errorf("lookup %s@%s:%s: %w", repo, commit, path, err)
	}
	span.SetAttr("count", strconv.Itoa(len(syms)))
	span.End()
	return syms, nil
}

// SymbolsAtNearMiss returns the symbols defined in path at commit, traced as one operation.
// ok: leaseleak
func (s *SymbolService) SymbolsAtNearMiss(ctx context.Context, repo, commit, path string) ([]Symbol, error) {
	ctx, span := s.tracer.Start(ctx, "symbols.at")
	defer span.End()
	span.SetAttr("repo", repo)
	span.SetAttr("commit", commit)
	if path == "" {
		return nil, ErrEmptyPath
	}
	syms, err := s.index.Lookup(ctx, repo, commit, path)
	if err != nil {
		span.RecordError(err)
		return nil, fmt.Errorf("lookup %s@%s:%s: %w", repo, commit, path, err)
	}
	span.SetAttr("count", strconv.Itoa(len(syms)))
	return syms, nil
}

// ---------------------------------------------------------------------------
// Rate-limit reservations.

// TokenBucket is a small token-bucket limiter with reservations.
type TokenBucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time
}

// Reservation is a claim on one token; Cancel gives it back.
type Reservation struct {
	b        *TokenBucket
	ok       bool
	at       time.Time
	canceled bool
}

// ok: leaseleak
func (b *TokenBucket) advance(now time.Time) {
	if !b.last.IsZero() {
		b.tokens += now.Sub(b.last).Seconds() * b.rate
		if b.tokens > b.burst {
			b.tokens = b.burst
		}
	}
	b.last = now
}

// ReserveAt takes one token at now, possibly from the future.
// ok: leaseleak
func (b *TokenBucket) ReserveAt(now time.Time) *Reservation {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rate <= 0 {
		return &Reservation{b: b}
	}
	b.advance(now)
	b.tokens--
	at := now
	if b.tokens < 0 {
		at = now.Add(time.Duration(-b.tokens / b.rate * float64(time.Second)))
	}
	return &Reservation{b: b, ok: true, at: at}
}

// OK reports whether a token was reserved.
// ok: leaseleak
func (r *Reservation) OK() bool { return r.ok }

// DelayFrom reports how long after now the token becomes usable.
// ok: leaseleak
func (r *Reservation) DelayFrom(now time.Time) time.Duration {
	if d := r.at.Sub(now); d > 0 {
		return d
	}
	return 0
}

// Cancel returns the reserved token to the bucket.
// ok: leaseleak
func (r *Reservation) Cancel() {
	if !r.ok {
		return
	}
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.canceled {
		return
	}
	r.canceled = true
	r.b.tokens++
}

// Throttle admits callers at the bucket's rate.
type Throttle struct {
	limiter *TokenBucket
	now     func() time.Time
}

// TryAcquire reserves one token and waits for it if it becomes usable within
// maxWait. A false result means the caller must not proceed.
// From: cadence-workflow/cadence#6030
// bug: leaseleak
func (l *Throttle) TryAcquire(ctx context.Context, maxWait time.Duration) (bool, error) {
	now := l.now()
	res := l.limiter.ReserveAt(now)
	if !res.OK() {
		return false, nil
	}
	delay := res.DelayFrom(now)
	if delay > maxWait {
		return false, nil
	}
	if err := sleepCtx(ctx, delay); err != nil {
		res.Cancel()
		return false, err
	}
	return true, nil
}

// TryAcquireNearMiss reserves one token and waits for it if it becomes
// usable within maxWait. A false result means the caller must not proceed.
// ok: leaseleak
func (l *Throttle) TryAcquireNearMiss(ctx context.Context, maxWait time.Duration) (bool, error) {
	now := l.now()
	res := l.limiter.ReserveAt(now)
	if !res.OK() {
		return false, nil
	}
	delay := res.DelayFrom(now)
	if delay > maxWait {
		res.Cancel()
		return false, nil
	}
	if err := sleepCtx(ctx, delay); err != nil {
		res.Cancel()
		return false, err
	}
	return true, nil
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// Heartbeater keeps a lease alive in the background.
type Heartbeater struct {
	renew    func(ctx context.Context) error
	interval time.Duration
	lastErr  atomic.Pointer[error]
}

// Start begins renewing in the background and returns stop, which cancels
// the renewal context and waits for the loop. The cancel func is owned by
// the goroutine and by stop; both call it.
// ok: leaseleak
func (h *Heartbeater) Start(ctx context.Context) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		t := time.NewTicker(h.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := h.renew(ctx); err != nil {
					h.lastErr.Store(&err)
					return
				}
			}
		}
	}()
	return func() error {
		cancel()
		<-done
		if p := h.lastErr.Load(); p != nil {
			return *p
		}
		return nil
	}
}

// Prober waits for a service to come up.
type Prober struct {
	ready <-chan struct{}
}

// AwaitReady waits for the ready signal for at most d. When the timer fires
// its value has been received, so only the other branches stop it.
// ok: leaseleak
func (p *Prober) AwaitReady(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return fmt.Errorf("not ready after %s", d)
	case <-p.ready:
		t.Stop()
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// ReadOptionalConfig reads path if it is present. The file is closed only
// when it was opened, as recorded in didOpen.
// ok: leaseleak
func ReadOptionalConfig(path string) (cfg map[string]string, err error) {
	var f *os.File
	didOpen := false
	defer func() {
		if didOpen {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()
	f, err = os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return map[string]string{}, nil
	case err != nil:
		return nil, err
	}
	didOpen = true
	cfg = map[string]string{}
	if err := json.NewDecoder(f).Decode(&cfg); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return cfg, nil
}

// Mailbox guards a queue with a mutex that is taken only when the queue exists.
type Mailbox struct {
	mu    sync.Mutex
	queue map[string][]string
}

// Deliver appends msg to to's queue when the box is enabled; the lock is
// released under the same condition it was taken.
// ok: leaseleak
func (m *Mailbox) Deliver(to, msg string, enabled bool) bool {
	if enabled {
		m.mu.Lock()
	}
	delivered := false
	if enabled && m.queue != nil {
		m.queue[to] = append(m.queue[to], msg)
		delivered = true
	}
	if enabled {
		m.mu.Unlock()
	}
	return delivered
}
