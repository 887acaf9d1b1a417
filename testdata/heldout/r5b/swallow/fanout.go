package swallow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"heldoutr5b/internal/store"
)

// FetchAll reads keys concurrently. The result of g.Wait is thrown away,
// so when the request context is canceled the caller gets a partial map
// and a nil error, and renders a page with missing entries as complete.
// From: sanposhiho/gomockhandler#71
// bug: swallowcancel
func FetchAll(ctx context.Context, c *store.Client, keys []string) (map[string][]byte, error) {
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	out := make(map[string][]byte, len(keys))
	for _, k := range keys {
		g.Go(func() error {
			v, err := c.Get(gctx, k)
			if err != nil {
				return fmt.Errorf("get %s: %w", k, err)
			}
			mu.Lock()
			out[k] = v
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	return out, nil
}

// FetchAllChecked returns the group's first error.
// ok: swallowcancel
func FetchAllChecked(ctx context.Context, c *store.Client, keys []string) (map[string][]byte, error) {
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	out := make(map[string][]byte, len(keys))
	for _, k := range keys {
		g.Go(func() error {
			v, err := c.Get(gctx, k)
			if err != nil {
				return fmt.Errorf("get %s: %w", k, err)
			}
			mu.Lock()
			out[k] = v
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Prober checks node health records.
type Prober struct {
	c   *store.Client
	log *log.Logger
}

// NewProber returns a prober.
// ok: swallowcancel
func NewProber(c *store.Client, l *log.Logger) *Prober { return &Prober{c: c, log: l} }

// ProbeAll marks each node healthy when its health record can be read. Each
// group function logs its failure and returns nil, cancellation included,
// so a canceled sweep returns a map of "unhealthy" nodes and a nil error
// and the scheduler drains perfectly good nodes.
// From: NVIDIA/aicr#2607
// bug: swallowcancel
func (p *Prober) ProbeAll(ctx context.Context, nodes []string) (map[string]bool, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	healthy := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		g.Go(func() error {
			_, err := p.c.Get(gctx, "health/"+n)
			if err != nil {
				p.log.Printf("probe %s: %v", n, err)
				return nil
			}
			mu.Lock()
			healthy[n] = true
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return healthy, nil
}

// ProbeAllAbortable still treats an ordinary probe failure as "unhealthy",
// but hands context errors back to the group so the sweep reports them.
// ok: swallowcancel
func (p *Prober) ProbeAllAbortable(ctx context.Context, nodes []string) (map[string]bool, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	var mu sync.Mutex
	healthy := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		g.Go(func() error {
			_, err := p.c.Get(gctx, "health/"+n)
			if err != nil {
				if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
					return err
				}
				p.log.Printf("probe %s: %v", n, err)
				return nil
			}
			mu.Lock()
			healthy[n] = true
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return healthy, nil
}

// Replicator copies a prefix from one store to another.
type Replicator struct {
	src, dst *store.Client
}

// NewReplicator returns a replicator from src to dst.
// ok: swallowcancel
func NewReplicator(src, dst *store.Client) *Replicator { return &Replicator{src: src, dst: dst} }

// CopyPrefix ranges over the record channel until it closes, but never
// reads the error channel: when the stream stops because ctx was canceled
// the close looks like the end of the data and a partial copy is reported
// as done.
// From: ipfs/kubo#4590
// bug: swallowcancel
func (r *Replicator) CopyPrefix(ctx context.Context, prefix string) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	records, _ := r.src.Stream(ctx, prefix)
	n := 0
	for rec := range records {
		if err := r.dst.Put(ctx, rec.Key, rec.Value); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// CopyPrefixChecked reads the error channel once the records are done.
// ok: swallowcancel
func (r *Replicator) CopyPrefixChecked(ctx context.Context, prefix string) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	records, errs := r.src.Stream(ctx, prefix)
	n := 0
	for rec := range records {
		if err := r.dst.Put(ctx, rec.Key, rec.Value); err != nil {
			return n, err
		}
		n++
	}
	if err := <-errs; err != nil {
		return n, fmt.Errorf("stream %s: %w", prefix, err)
	}
	return n, nil
}

// RouteTable mirrors the routes/ prefix.
type RouteTable struct {
	c      *store.Client
	log    *log.Logger
	mu     sync.Mutex
	routes map[string][]byte
}

// NewRouteTable returns an empty table.
// ok: swallowcancel
func NewRouteTable(c *store.Client, l *log.Logger) *RouteTable {
	return &RouteTable{c: c, log: l, routes: make(map[string][]byte)}
}

// apply records one route.
// ok: swallowcancel
func (t *RouteTable) apply(r store.Record) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.routes[r.Key] = r.Value
	return len(t.routes)
}

// WaitForRoutes blocks until want routes are loaded. A Canceled watch
// response carries the cancellation in its Err field, which is ignored:
// the function logs a "graceful shutdown" and returns nil, and the proxy
// starts serving with an incomplete route table.
// From: vulcand/vulcand#372
// bug: swallowcancel
func (t *RouteTable) WaitForRoutes(ctx context.Context, want int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range t.c.Watch(ctx, "routes/") {
		if resp.Canceled {
			t.log.Printf("stop watching routes: graceful shutdown")
			return nil
		}
		for _, ev := range resp.Events {
			if t.apply(ev) >= want {
				return nil
			}
		}
	}
	return errors.New("route watch closed early")
}

// WaitForRoutesChecked returns the Err carried by the Canceled response.
// ok: swallowcancel
func (t *RouteTable) WaitForRoutesChecked(ctx context.Context, want int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for resp := range t.c.Watch(ctx, "routes/") {
		if resp.Canceled {
			t.log.Printf("stop watching routes: %v", resp.Err())
			return fmt.Errorf("waiting for routes: %w", resp.Err())
		}
		for _, ev := range resp.Events {
			if t.apply(ev) >= want {
				return nil
			}
		}
	}
	return errors.New("route watch closed early")
}

// Reconciler syncs per-tenant state.
type Reconciler struct {
	c            *store.Client
	log          *log.Logger
	mu           sync.Mutex
	synced       map[string]time.Time
	lastFullSync time.Time
}

// NewReconciler returns a reconciler.
// ok: swallowcancel
func NewReconciler(c *store.Client, l *log.Logger) *Reconciler {
	return &Reconciler{c: c, log: l, synced: make(map[string]time.Time)}
}

// syncTenant copies a tenant's desired quota into its applied slot.
// ok: swallowcancel
func (r *Reconciler) syncTenant(ctx context.Context, tenant string) error {
	v, err := r.c.Get(ctx, "desired/"+tenant)
	if err != nil {
		return err
	}
	return r.c.Put(ctx, "applied/"+tenant, v)
}

// SyncAll logs each tenant failure and moves on, which is right for one
// broken tenant but also applies to cancellation: after shutdown begins
// every remaining tenant "fails", and SyncAll still stamps a full sync and
// returns nil.
// From: kcp-dev/kcp#692
// bug: swallowcancel
func (r *Reconciler) SyncAll(ctx context.Context, tenants []string) error {
	for _, t := range tenants {
		if err := r.syncTenant(ctx, t); err != nil {
			r.log.Printf("sync tenant %s: %v", t, err)
			continue
		}
		r.mu.Lock()
		r.synced[t] = time.Now()
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.lastFullSync = time.Now()
	r.mu.Unlock()
	return nil
}

// SyncAllAbortable still logs and skips a broken tenant, but lets the
// context error take precedence, as the kcp fix does.
// ok: swallowcancel
func (r *Reconciler) SyncAllAbortable(ctx context.Context, tenants []string) error {
	for _, t := range tenants {
		if err := r.syncTenant(ctx, t); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			r.log.Printf("sync tenant %s: %v", t, err)
			continue
		}
		r.mu.Lock()
		r.synced[t] = time.Now()
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.lastFullSync = time.Now()
	r.mu.Unlock()
	return nil
}

// Source is a resolver backend bound to one key.
type Source struct {
	c   *store.Client
	key string
}

// Fetch reads the source's key; Source.Fetch method values are handed to
// the FirstAvailable helpers.
// ok: swallowcancel
func (s Source) Fetch(ctx context.Context) ([]byte, error) { return s.c.Get(ctx, s.key) }

// FirstAvailable returns the first source that answers. Every error,
// cancellation included, becomes "not available", so a caller whose
// request was canceled falls back to defaults and serves them as the
// answer.
// From: uw-labs/substrate#126
// bug: swallowcancel
func FirstAvailable[T any](ctx context.Context, sources ...func(context.Context) (T, error)) (T, bool) {
	for _, src := range sources {
		v, err := src(ctx)
		if err == nil {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// FirstAvailableErr tries the sources in order but stops and returns the
// context's error as soon as the caller's context is done.
// ok: swallowcancel
func FirstAvailableErr[T any](ctx context.Context, sources ...func(context.Context) (T, error)) (T, error) {
	var zero T
	var last error = store.ErrNotFound
	for _, src := range sources {
		v, err := src(ctx)
		if err == nil {
			return v, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return zero, cerr
		}
		last = err
	}
	return zero, last
}

// ResolveConfig reads a config blob from the first answering replica via
// method values.
// ok: swallowcancel
func ResolveConfig(ctx context.Context, primary, replica *store.Client, key string) ([]byte, error) {
	return FirstAvailableErr(ctx,
		Source{c: primary, key: key}.Fetch,
		Source{c: replica, key: key}.Fetch,
	)
}

// ImportLines stores JSON lines. Malformed lines are logged and skipped,
// which looks like logged-and-continued, but a decode error has nothing to
// do with the context; every Put error, cancellation included, is returned.
// ok: swallowcancel
func ImportLines(ctx context.Context, c *store.Client, l *log.Logger, lines [][]byte) (int, error) {
	n := 0
	for i, line := range lines {
		var rec struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			l.Printf("line %d: skipping malformed record: %v", i, err)
			continue
		}
		if err := c.Put(ctx, rec.Key, []byte(rec.Value)); err != nil {
			return n, fmt.Errorf("line %d: %w", i, err)
		}
		n++
	}
	return n, nil
}

// PrefetchAll uses sync.WaitGroup.Go with per-slot errors. The goroutines
// never return errors to anyone directly, which looks like dropping them,
// but every slot is joined into the result after Wait.
// ok: swallowcancel
func PrefetchAll(ctx context.Context, c *store.Client, keys []string) ([][]byte, error) {
	vals := make([][]byte, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Go(func() {
			vals[i], errs[i] = c.Get(ctx, k)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return vals, nil
}
