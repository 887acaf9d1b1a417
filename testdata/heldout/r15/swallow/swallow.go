// Package swallow holds functions where an error that can carry
// context.Canceled is dropped, turned into nil, or logged and stepped over.
package swallow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Logger is the narrow logging surface used by the services below.
type Logger interface {
	Printf(format string, args ...any)
}

// ---------------------------------------------------------------------------
// Analytics counts read through database/sql.

// EventCounter reads per-type event counts from an analytics store.
type EventCounter struct {
	db *sql.DB
}

// NewEventCounter wraps an open database handle.
// ok: swallowcancel
func NewEventCounter(db *sql.DB) *EventCounter {
	return &EventCounter{db: db}
}

// CountByType returns the number of events of each type since the given
// time. The query runs under the caller's context; when that context is
// cancelled while rows are streaming, Next simply stops and the partial map is
// handed back as if it were the full answer.
// From: ClickHouse/clickhouse-go#1726
// bug: swallowcancel
func (c *EventCounter) CountByType(ctx context.Context, since time.Time) (map[string]uint64, error) {
	rows, err := c.db.QueryContext(ctx, "SELECT type, count() FROM events WHERE ts >= ? GROUP BY type", since)
	if err != nil {
		return nil, fmt.Errorf("query event counts: %w", err)
	}
	defer rows.Close()

	out := make(map[string]uint64)
	for rows.Next() {
		var typ string
		var n uint64
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, fmt.Errorf("scan event count: %w", err)
		}
		out[typ] = n
	}
	return out, nil
}

// CountByTypeNearMiss is CountByType with the iteration error checked.
// ok: swallowcancel
func (c *EventCounter) CountByTypeNearMiss(ctx context.Context, since time.Time) (map[string]uint64, error) {
	rows, err := c.db.QueryContext(ctx, "SELECT type, count() FROM events WHERE ts >= ? GROUP BY type", since)
	if err != nil {
		return nil, fmt.Errorf("query event counts: %w", err)
	}
	defer rows.Close()

	out := make(map[string]uint64)
	for rows.Next() {
		var typ string
		var n uint64
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, fmt.Errorf("scan event count: %w", err)
		}
		out[typ] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("iterate event counts: %w", err)
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Storage network discovery loop.

// ipCache remembers the storage IPs seen on the last scan.
type ipCache struct {
	mu  sync.Mutex
	ips map[string]time.Time
}

// put records ips as seen now.
// ok: swallowcancel
func (c *ipCache) put(ips []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ips == nil {
		c.ips = make(map[string]time.Time)
	}
	now := time.Now()
	for _, ip := range ips {
		c.ips[ip] = now
	}
}

// Discoverer periodically scans the node for storage network addresses.
type Discoverer struct {
	interval time.Duration
	scan     func(ctx context.Context) ([]string, error)
	cache    *ipCache
	log      Logger
}

// DiscoveryLoop scans on every tick until the context ends. When the
// controller's context is cancelled the loop reports a clean exit, so the
// process exits 0 and the supervisor believes discovery completed normally.
// From: deckhouse/sds-replicated-volume#202
// bug: swallowcancel
func (d *Discoverer) DiscoveryLoop(ctx context.Context) error {
	ticker := time.NewTicker(d.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		ips, err := d.scan(ctx)
		if err != nil {
			return fmt.Errorf("scan storage networks: %w", err)
		}
		d.cache.put(ips)
	}
}

// DiscoveryLoopNearMiss is DiscoveryLoop returning the context's error.
// ok: swallowcancel
func (d *Discoverer) DiscoveryLoopNearMiss(ctx context.Context) error {
	ticker := time.NewTicker(d.interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
		ips, err := d.scan(ctx)
		if err != nil {
			return fmt.Errorf("scan storage networks: %w", err)
		}
		d.cache.put(ips)
	}
}

// ---------------------------------------------------------------------------
// Block range server used during state sync.

// Block is a minimal chain block.
type Block struct {
	Height uint64
	Hash   [32]byte
}

// BlockSource reads single blocks from local storage.
type BlockSource interface {
	BlockAt(ctx context.Context, height uint64) (*Block, error)
}

// RangeServer answers block range requests from syncing peers.
type RangeServer struct {
	src BlockSource
}

// GetBlocks returns count blocks starting at from. If the request context is
// cancelled part way through, it answers with no blocks and no error, which the
// codec cannot encode and the peer reads as an empty but successful reply.
// From: ava-labs/coreth#1096
// bug: swallowcancel
func (s *RangeServer) GetBlocks(ctx context.Context, from, count uint64) ([]*Block, error) {
	blocks := make([]*Block, 0, count)
	for h := from; h < from+count; h++ {
		if ctx.Err() != nil {
			return nil, nil
		}
		b, err := s.src.BlockAt(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", h, err)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// GetBlocksNearMiss is GetBlocks returning the context's error.
// ok: swallowcancel
func (s *RangeServer) GetBlocksNearMiss(ctx context.Context, from, count uint64) ([]*Block, error) {
	blocks := make([]*Block, 0, count)
	for h := from; h < from+count; h++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := s.src.BlockAt(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", h, err)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// ---------------------------------------------------------------------------
// Multi-phase repository sync.

// Renderer prints the outcome of a sync.
type Renderer interface {
	Success(summary string)
	Interrupted(phase string)
}

// ExitCodeError carries a process exit code.
type ExitCodeError struct {
	Code int
	Err  error
}

// Error implements error.
// ok: swallowcancel
func (e *ExitCodeError) Error() string {
	return fmt.Sprintf("exit %d: %v", e.Code, e.Err)
}

// Unwrap exposes the cause.
// ok: swallowcancel
func (e *ExitCodeError) Unwrap() error { return e.Err }

// Syncer runs the plan, apply and prune phases of a sync.
type Syncer struct {
	plan, apply, prune func(ctx context.Context) error
	render             Renderer
	log                Logger
}

// RunSync runs each phase in order. When a phase stops because the user
// pressed Ctrl-C, the loop stops, the success summary is still printed, and
// the command exits 0 with partial state on disk.
// From: getgaal/gaal#200
// bug: swallowcancel
func (s *Syncer) RunSync(ctx context.Context) error {
	phases := []struct {
		name string
		run  func(context.Context) error
	}{{"plan", s.plan}, {"apply", s.apply}, {"prune", s.prune}}

	done := 0
	for _, p := range phases {
		if err := p.run(ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				s.log.Printf("sync: %s phase interrupted", p.name)
				break
			}
			return fmt.Errorf("sync %s: %w", p.name, err)
		}
		done++
	}
	s.render.Success(fmt.Sprintf("%d phases complete", done))
	return nil
}

// RunSyncNearMiss reports the interruption as exit code 130.
// ok: swallowcancel
func (s *Syncer) RunSyncNearMiss(ctx context.Context) error {
	phases := []struct {
		name string
		run  func(context.Context) error
	}{{"plan", s.plan}, {"apply", s.apply}, {"prune", s.prune}}

	done := 0
	for _, p := range phases {
		if err := p.run(ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				s.render.Interrupted(p.name)
				return &ExitCodeError{Code: 130, Err: fmt.Errorf("sync %s: %w", p.name, err)}
			}
			return fmt.Errorf("sync %s: %w", p.name, err)
		}
		done++
	}
	s.render.Success(fmt.Sprintf("%d phases complete", done))
	return nil
}

// ---------------------------------------------------------------------------
// Agent hardware inventory.

// Hardware describes the host.
type Hardware struct {
	CPUs   int
	Memory uint64
}

// Inventory is the report the agent uploads.
type Inventory struct {
	Hardware *Hardware
	Uptime   time.Duration
}

// Prober reads host facts.
type Prober interface {
	Hardware(ctx context.Context) (*Hardware, error)
	Uptime(ctx context.Context) (time.Duration, error)
}

// Agent gathers inventory for upload.
type Agent struct {
	probe        Prober
	probeTimeout time.Duration
}

// withTimeout runs fn under a child context bounded by d.
// ok: swallowcancel
func withTimeout(ctx context.Context, d time.Duration, fn func(context.Context)) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	fn(ctx)
}

// CollectInventory probes hardware inside a bounded closure. The closure
// declares its own hwErr, so a probe that was cancelled or timed out leaves the
// outer hwErr nil and an inventory without hardware is reported as complete.
// From: cloudradar-monitoring/cagent#140
// bug: swallowcancel
func (a *Agent) CollectInventory(ctx context.Context) (*Inventory, error) {
	var inv Inventory
	var hwErr error
	withTimeout(ctx, a.probeTimeout, func(ctx context.Context) {
		hw, hwErr := a.probe.Hardware(ctx)
		if hwErr != nil {
			return
		}
		inv.Hardware = hw
	})
	if hwErr != nil {
		return nil, fmt.Errorf("hardware inventory: %w", hwErr)
	}
	up, err := a.probe.Uptime(ctx)
	if err != nil {
		return nil, fmt.Errorf("uptime: %w", err)
	}
	inv.Uptime = up
	return &inv, nil
}

// CollectInventoryNearMiss assigns to the outer hwErr.
// ok: swallowcancel
func (a *Agent) CollectInventoryNearMiss(ctx context.Context) (*Inventory, error) {
	var inv Inventory
	var hwErr error
	withTimeout(ctx, a.probeTimeout, func(ctx context.Context) {
		var hw *Hardware
		hw, hwErr = a.probe.Hardware(ctx)
		if hwErr != nil {
			return
		}
		inv.Hardware = hw
	})
	if hwErr != nil {
		return nil, fmt.Errorf("hardware inventory: %w", hwErr)
	}
	up, err := a.probe.Uptime(ctx)
	if err != nil {
		return nil, fmt.Errorf("uptime: %w", err)
	}
	inv.Uptime = up
	return &inv, nil
}

// ---------------------------------------------------------------------------
// A group that collects every error from its goroutines.

// MultiErrGroup runs independent sub-tasks and collects all their errors.
type MultiErrGroup struct {
	mu   sync.Mutex
	errs []error
	wg   sync.WaitGroup
}

// Go runs fn in a new goroutine tracked by the group. Errors that are
// context.Canceled are not recorded, so a group whose tasks were all cut short
// by shutdown returns no errors from Wait and reads as fully successful.
// From: elastic/go-concert#20
// bug: swallowcancel
func (g *MultiErrGroup) Go(fn func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, context.Canceled) {
			g.mu.Lock()
			g.errs = append(g.errs, err)
			g.mu.Unlock()
		}
	}()
}

// Wait blocks until all tasks return and reports their errors.
// ok: swallowcancel
func (g *MultiErrGroup) Wait() []error {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]error(nil), g.errs...)
}

// MultiErrGroupNearMiss is MultiErrGroup recording every error.
type MultiErrGroupNearMiss struct {
	mu   sync.Mutex
	errs []error
	wg   sync.WaitGroup
}

// Go runs fn in a new goroutine tracked by the group.
// ok: swallowcancel
func (g *MultiErrGroupNearMiss) Go(fn func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := fn(); err != nil {
			g.mu.Lock()
			g.errs = append(g.errs, err)
			g.mu.Unlock()
		}
	}()
}

// Wait blocks until all tasks return and reports their errors.
// ok: swallowcancel
func (g *MultiErrGroupNearMiss) Wait() []error {
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]error(nil), g.errs...)
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// ReadAllFrames reads length-prefixed frames until the stream ends. io.EOF is
// the normal end of the stream and is turned into success; anything else,
// including a cancelled read, is returned.
// ok: swallowcancel
func ReadAllFrames(ctx context.Context, next func(context.Context) ([]byte, error)) ([][]byte, error) {
	var frames [][]byte
	for {
		f, err := next(ctx)
		if errors.Is(err, io.EOF) {
			return frames, nil
		}
		if err != nil {
			return nil, err
		}
		frames = append(frames, f)
	}
}

// WriteSnapshot writes data to path. The deferred closure only fills in the
// named error when the body succeeded, so a cancellation error is never
// overwritten.
// ok: swallowcancel
func WriteSnapshot(ctx context.Context, path string, produce func(context.Context, io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return produce(ctx, f)
}

// IndexAll indexes every document, logging and skipping documents that fail
// on their own, but stops and reports the context error once the caller has
// gone away.
// ok: swallowcancel
func IndexAll(ctx context.Context, ids []string, index func(context.Context, string) error, log Logger) (int, error) {
	n := 0
	for _, id := range ids {
		if err := index(ctx, id); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return n, fmt.Errorf("index %s: %w", id, ctxErr)
			}
			log.Printf("index %s: %v (skipped)", id, err)
			continue
		}
		n++
	}
	return n, nil
}
