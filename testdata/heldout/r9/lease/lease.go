// Package lease holds acquire/release pairs (cancel funcs, timers, locks,
// quotas, sql rows and transactions, HTTP bodies, spans, files) and whether
// every path releases them.
package lease

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Certificate cleanup transaction (apache/trafficcontrol#5761)
// ---------------------------------------------------------------------------

// certJob carries the transaction context of one cleanup run. Whoever ends
// the job must call cancel.
type certJob struct {
	ctx    context.Context
	cancel context.CancelFunc
	tx     *sql.Tx
}

// CertCleaner deletes certificates of deleted delivery services.
type CertCleaner struct {
	db        *sql.DB
	txTimeout time.Duration
	listKeys  func(ctx context.Context) ([]string, error)
	deleteKey func(ctx context.Context, key string) error
	logger    *log.Logger
}

// DeleteOldCerts removes certificates whose delivery service is gone.
//
// From: apache/trafficcontrol#5761
// bug: leaseleak
func (c *CertCleaner) DeleteOldCerts(parent context.Context) error {
	ctx, cancelTx := context.WithTimeout(parent, c.txTimeout)
	job := &certJob{ctx: ctx, cancel: cancelTx}

	tx, err := c.db.BeginTx(job.ctx, nil)
	if err != nil {
		// cancelTx is never called on this path; the timer and the child
		// context stay registered on parent until txTimeout expires.
		return fmt.Errorf("beginning transaction: %w", err)
	}
	job.tx = tx
	defer job.cancel()
	defer job.tx.Rollback()

	keys, err := c.listKeys(job.ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := c.deleteKey(job.ctx, k); err != nil {
			c.logger.Printf("deleting cert %s: %v", k, err)
		}
	}
	return job.tx.Commit()
}

// DeleteOldCertsNearMiss removes certificates whose delivery service is gone.
//
// ok: leaseleak
func (c *CertCleaner) DeleteOldCertsNearMiss(parent context.Context) error {
	ctx, cancelTx := context.WithTimeout(parent, c.txTimeout)
	job := &certJob{ctx: ctx, cancel: cancelTx}
	defer job.cancel()

	tx, err := c.db.BeginTx(job.ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	job.tx = tx
	defer job.tx.Rollback()

	keys, err := c.listKeys(job.ctx)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := c.deleteKey(job.ctx, k); err != nil {
			c.logger.Printf("deleting cert %s: %v", k, err)
		}
	}
	return job.tx.Commit()
}

// ---------------------------------------------------------------------------
// Server-sent events subscription (r3labs/sse#95)
// ---------------------------------------------------------------------------

// SSEClient subscribes to an event stream.
type SSEClient struct {
	URL        string
	Connection *http.Client
	Headers    map[string]string
}

// ok: leaseleak
func (c *SSEClient) request(ctx context.Context, stream string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return nil, err
	}
	q := req.URL.Query()
	q.Add("stream", stream)
	req.URL.RawQuery = q.Encode()
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range c.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// SubscribeWithContext reads events of stream and passes them to handler
// until the stream ends.
//
// From: r3labs/sse#95
// bug: leaseleak
func (c *SSEClient) SubscribeWithContext(ctx context.Context, stream string, handler func(line []byte)) error {
	req, err := c.request(ctx, stream)
	if err != nil {
		return err
	}
	resp, err := c.Connection.Do(req)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		// The body of a 401/503 answer is never closed, so the connection
		// cannot go back to the pool; reconnect loops leak one per try.
		return fmt.Errorf("could not connect to stream: %s", http.StatusText(resp.StatusCode))
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		handler(sc.Bytes())
	}
	return sc.Err()
}

// SubscribeWithContextNearMiss reads events of stream until it ends.
//
// ok: leaseleak
func (c *SSEClient) SubscribeWithContextNearMiss(ctx context.Context, stream string, handler func(line []byte)) error {
	req, err := c.request(ctx, stream)
	if err != nil {
		return err
	}
	resp, err := c.Connection.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("could not connect to stream: %s", http.StatusText(resp.StatusCode))
	}

	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		handler(sc.Bytes())
	}
	return sc.Err()
}

// ---------------------------------------------------------------------------
// Service discovery leader registration (flynn/flynn#2591)
// ---------------------------------------------------------------------------

// Instance is a registered service instance.
type Instance struct {
	ID   string
	Addr string
}

// Store is discoverd's service store.
type Store struct {
	mu        sync.Mutex
	services  map[string]map[string]*Instance
	leaders   map[string]string
	persist   func(ctx context.Context, service string, inst *Instance) error
	observers []chan<- string
}

// AddInstance registers inst under service and elects it leader if the
// service has none.
//
// From: flynn/flynn#2591
// bug: leaseleak
func (s *Store) AddInstance(ctx context.Context, service string, inst *Instance) error {
	s.mu.Lock()
	if _, ok := s.services[service]; !ok {
		s.services[service] = make(map[string]*Instance)
	}
	if err := s.persist(ctx, service, inst); err != nil {
		// s.mu stays locked: every later call deadlocks, which at startup
		// (persist racing the raft leader) hangs the whole daemon.
		return fmt.Errorf("persisting instance %s: %w", inst.ID, err)
	}
	s.services[service][inst.ID] = inst
	if _, ok := s.leaders[service]; !ok {
		s.leaders[service] = inst.ID
	}
	s.mu.Unlock()

	for _, o := range s.observers {
		select {
		case o <- service:
		default:
		}
	}
	return nil
}

// AddInstanceNearMiss registers inst under service.
//
// ok: leaseleak
func (s *Store) AddInstanceNearMiss(ctx context.Context, service string, inst *Instance) error {
	s.mu.Lock()
	if _, ok := s.services[service]; !ok {
		s.services[service] = make(map[string]*Instance)
	}
	if err := s.persist(ctx, service, inst); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("persisting instance %s: %w", inst.ID, err)
	}
	s.services[service][inst.ID] = inst
	if _, ok := s.leaders[service]; !ok {
		s.leaders[service] = inst.ID
	}
	s.mu.Unlock()

	for _, o := range s.observers {
		select {
		case o <- service:
		default:
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Tracing spans in a processing loop (OffchainLabs/prysm#7405)
// ---------------------------------------------------------------------------

// Span is a tracing span.
type Span interface {
	End()
	AddAttribute(key string, value any)
}

// Tracer starts spans.
type Tracer interface {
	StartSpan(ctx context.Context, name string) (context.Context, Span)
}

// Block is a beacon block waiting for its parent.
type Block struct {
	Slot       uint64
	ParentRoot [32]byte
}

// PendingQueue holds blocks received before their parents.
type PendingQueue struct {
	tracer    Tracer
	bySlot    map[uint64][]*Block
	hasParent func(ctx context.Context, root [32]byte) bool
	process   func(ctx context.Context, b *Block) error
	logger    *log.Logger
}

// ProcessPendingBlocks tries to import every queued block whose parent is
// now known.
//
// From: OffchainLabs/prysm#7405
// bug: leaseleak
func (q *PendingQueue) ProcessPendingBlocks(ctx context.Context, slots []uint64) error {
	for _, slot := range slots {
		ctx, span := q.tracer.StartSpan(ctx, "processPendingBlocks.InnerLoop")
		span.AddAttribute("slot", slot)

		blocks := q.bySlot[slot]
		if len(blocks) == 0 {
			// continue without span.End(): the span and its context are
			// never finished for empty slots.
			continue
		}
		for _, b := range blocks {
			if !q.hasParent(ctx, b.ParentRoot) {
				continue
			}
			if err := q.process(ctx, b); err != nil {
				q.logger.Printf("could not process pending block at slot %d: %v", slot, err)
				continue
			}
		}
		delete(q.bySlot, slot)
		span.End()
	}
	return nil
}

// ProcessPendingBlocksNearMiss tries to import every queued block whose
// parent is now known.
//
// ok: leaseleak
func (q *PendingQueue) ProcessPendingBlocksNearMiss(ctx context.Context, slots []uint64) error {
	for _, slot := range slots {
		ctx, span := q.tracer.StartSpan(ctx, "processPendingBlocks.InnerLoop")
		span.AddAttribute("slot", slot)

		blocks := q.bySlot[slot]
		if len(blocks) == 0 {
			span.End()
			continue
		}
		for _, b := range blocks {
			if !q.hasParent(ctx, b.ParentRoot) {
				continue
			}
			if err := q.process(ctx, b); err != nil {
				q.logger.Printf("could not process pending block at slot %d: %v", slot, err)
				continue
			}
		}
		delete(q.bySlot, slot)
		span.End()
	}
	return nil
}

// ---------------------------------------------------------------------------
// IPAM prefix storage (metal-stack/go-ipam#160)
// ---------------------------------------------------------------------------

// Prefix is a stored CIDR with its allocation state.
type Prefix struct {
	Cidr    string
	Version int64
	IPs     []byte
}

// SQLStorage persists prefixes in Postgres.
type SQLStorage struct {
	db *sql.DB
}

// ErrOptimisticLockError is returned when a concurrent writer won.
var ErrOptimisticLockError = errors.New("optimistic lock error")

// UpdatePrefix writes p if nobody changed it since it was read.
//
// From: metal-stack/go-ipam#160
// bug: leaseleak
func (s *SQLStorage) UpdatePrefix(ctx context.Context, p Prefix) (Prefix, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return Prefix{}, fmt.Errorf("unable to start transaction: %w", err)
	}
	var version int64
	if err := tx.QueryRowContext(ctx, "SELECT version FROM prefixes WHERE cidr=$1 FOR UPDATE", p.Cidr).Scan(&version); err != nil {
		// The transaction (and its pooled connection) is left open on this
		// and the following error returns.
		return Prefix{}, fmt.Errorf("unable to read prefix %s: %w", p.Cidr, err)
	}
	if version != p.Version {
		return Prefix{}, fmt.Errorf("%w: prefix %s changed", ErrOptimisticLockError, p.Cidr)
	}
	p.Version++
	if _, err := tx.ExecContext(ctx, "UPDATE prefixes SET ips=$1, version=$2 WHERE cidr=$3", p.IPs, p.Version, p.Cidr); err != nil {
		return Prefix{}, fmt.Errorf("unable to update prefix %s: %w", p.Cidr, err)
	}
	if err := tx.Commit(); err != nil {
		return Prefix{}, err
	}
	return p, nil
}

// UpdatePrefixNearMiss writes p if nobody changed it since it was read.
//
// ok: leaseleak
func (s *SQLStorage) UpdatePrefixNearMiss(ctx context.Context, p Prefix) (Prefix, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return Prefix{}, fmt.Errorf("unable to start transaction: %w", err)
	}
	defer func() { _ = tx.Rollback() }()

	var version int64
	if err := tx.QueryRowContext(ctx, "SELECT version FROM prefixes WHERE cidr=$1 FOR UPDATE", p.Cidr).Scan(&version); err != nil {
		return Prefix{}, fmt.Errorf("unable to read prefix %s: %w", p.Cidr, err)
	}
	if version != p.Version {
		return Prefix{}, fmt.Errorf("%w: prefix %s changed", ErrOptimisticLockError, p.Cidr)
	}
	p.Version++
	if _, err := tx.ExecContext(ctx, "UPDATE prefixes SET ips=$1, version=$2 WHERE cidr=$3", p.IPs, p.Version, p.Cidr); err != nil {
		return Prefix{}, fmt.Errorf("unable to update prefix %s: %w", p.Cidr, err)
	}
	if err := tx.Commit(); err != nil {
		return Prefix{}, err
	}
	return p, nil
}

// ---------------------------------------------------------------------------
// Connected reporter timers (Psiphon-Labs/psiphon-tunnel-core#427)
// ---------------------------------------------------------------------------

// Controller manages tunnels and reports connectivity.
type Controller struct {
	reportPeriod time.Duration
	report       func(tunnelID string)
	logger       *log.Logger
}

// watchTunnel schedules the periodic "connected" report for one established
// tunnel and blocks until the tunnel goes down.
//
// From: Psiphon-Labs/psiphon-tunnel-core#427
// bug: leaseleak
func (c *Controller) watchTunnel(ctx context.Context, tunnelID string, down <-chan struct{}) {
	// 24h timer per connected event. It is never stopped, so after a
	// reconnect the old callback still fires and reports a dead tunnel, and
	// frequent reconnects pile up pending timers.
	time.AfterFunc(c.reportPeriod, func() {
		c.report(tunnelID)
	})
	select {
	case <-down:
		c.logger.Printf("tunnel %s down", tunnelID)
	case <-ctx.Done():
	}
}

// watchTunnelNearMiss schedules the periodic "connected" report for one
// established tunnel and blocks until the tunnel goes down.
//
// ok: leaseleak
func (c *Controller) watchTunnelNearMiss(ctx context.Context, tunnelID string, down <-chan struct{}) {
	timer := time.AfterFunc(c.reportPeriod, func() {
		c.report(tunnelID)
	})
	defer timer.Stop()
	select {
	case <-down:
		c.logger.Printf("tunnel %s down", tunnelID)
	case <-ctx.Done():
	}
}

// ---------------------------------------------------------------------------
// MQTT v5 send quota (eclipse-paho/paho.golang#197)
// ---------------------------------------------------------------------------

// SendQuota implements the MQTT v5 Receive Maximum flow control: at most
// quota PUBLISH packets may be unacknowledged.
type SendQuota struct {
	mu      sync.Mutex
	quota   uint16
	waiters []chan struct{}
}

// NewSendQuota returns a quota of n slots.
// ok: leaseleak
func NewSendQuota(n uint16) *SendQuota { return &SendQuota{quota: n} }

// Release returns one slot, handing it straight to the oldest waiter.
// ok: leaseleak
func (q *SendQuota) Release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiters) > 0 {
		w := q.waiters[0]
		q.waiters = q.waiters[1:]
		close(w)
		return
	}
	q.quota++
}

// Acquire blocks until a slot is available or ctx is done.
//
// From: eclipse-paho/paho.golang#197
// bug: leaseleak
func (q *SendQuota) Acquire(ctx context.Context) error {
	q.mu.Lock()
	if q.quota > 0 {
		q.quota--
		q.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	q.waiters = append(q.waiters, ready)
	q.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		// The waiter stays queued: the next Release hands its slot to this
		// abandoned channel, and that slot is never released again. After
		// enough cancellations the client deadlocks.
		return ctx.Err()
	}
}

// AcquireNearMiss blocks until a slot is available or ctx is done.
//
// ok: leaseleak
func (q *SendQuota) AcquireNearMiss(ctx context.Context) error {
	q.mu.Lock()
	if q.quota > 0 {
		q.quota--
		q.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	q.waiters = append(q.waiters, ready)
	q.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		for i, w := range q.waiters {
			if w == ready {
				q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// Release already handed us the slot; give it back.
		select {
		case <-ready:
			if len(q.waiters) > 0 {
				next := q.waiters[0]
				q.waiters = q.waiters[1:]
				close(next)
			} else {
				q.quota++
			}
		default:
		}
		return ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Trade history sync (c9s/bbgo#679)
// ---------------------------------------------------------------------------

// Trade is one stored fill.
type Trade struct {
	ID     uint64
	Symbol string
	Price  float64
	Qty    float64
}

// TradeService reads and writes trades.
type TradeService struct {
	db *sql.DB
}

// LastTradeIDs returns, per symbol, the ID of the newest stored trade, used
// as the starting point of the next sync.
//
// From: c9s/bbgo#679
// bug: leaseleak
func (s *TradeService) LastTradeIDs(ctx context.Context, exchange string, symbols []string) (map[string]uint64, error) {
	out := make(map[string]uint64, len(symbols))
	for _, sym := range symbols {
		rows, err := s.db.QueryContext(ctx,
			"SELECT id FROM trades WHERE exchange = ? AND symbol = ? ORDER BY id DESC LIMIT 1", exchange, sym)
		if err != nil {
			return nil, err
		}
		if rows.Next() {
			var id uint64
			if err := rows.Scan(&id); err != nil {
				// rows is not closed on this path; with SQLite the open
				// statement keeps the database locked for every writer.
				return nil, err
			}
			out[sym] = id
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LastTradeIDsNearMiss returns, per symbol, the ID of the newest stored
// trade.
//
// ok: leaseleak
func (s *TradeService) LastTradeIDsNearMiss(ctx context.Context, exchange string, symbols []string) (map[string]uint64, error) {
	out := make(map[string]uint64, len(symbols))
	for _, sym := range symbols {
		id, found, err := func() (uint64, bool, error) {
			rows, err := s.db.QueryContext(ctx,
				"SELECT id FROM trades WHERE exchange = ? AND symbol = ? ORDER BY id DESC LIMIT 1", exchange, sym)
			if err != nil {
				return 0, false, err
			}
			defer rows.Close()
			if !rows.Next() {
				return 0, false, rows.Err()
			}
			var id uint64
			if err := rows.Scan(&id); err != nil {
				return 0, false, err
			}
			return id, true, nil
		}()
		if err != nil {
			return nil, err
		}
		if found {
			out[sym] = id
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// WithDeadline derives a request context and hands the cancel func to the
// caller, who is documented to defer it.
//
// ok: leaseleak
func WithDeadline(parent context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := parent.Deadline(); ok && time.Until(d) < budget {
		return context.WithCancel(parent)
	}
	return context.WithTimeout(parent, budget)
}

// Counter is a mutex-protected counter whose lock is released in a
// deferred closure that also records metrics.
type Counter struct {
	mu    sync.Mutex
	n     map[string]int
	holds int
}

// IncrementIfBelow increments key unless it reached limit.
//
// ok: leaseleak
func (c *Counter) IncrementIfBelow(key string, limit int) (bool, error) {
	c.mu.Lock()
	defer func() {
		c.holds++
		c.mu.Unlock()
	}()
	if c.n == nil {
		return false, errors.New("counter not initialized")
	}
	if c.n[key] >= limit {
		return false, nil
	}
	c.n[key]++
	return true, nil
}

// WaitOrTimeout uses a timer whose channel is received from, so on that path
// it has fired; the other path stops it.
//
// ok: leaseleak
func WaitOrTimeout(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	select {
	case <-t.C:
		return false
	case <-done:
		t.Stop()
		return true
	}
}

// CopyToFile copies r into a new file, closing it on every path and
// reporting the Close error on the success path.
//
// ok: leaseleak
func CopyToFile(path string, r io.Reader) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(f, r)
	return err
}

// OpenBody returns the response body to the caller, who owns closing it;
// error paths close it here.
//
// ok: leaseleak
func OpenBody(ctx context.Context, client *http.Client, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}
