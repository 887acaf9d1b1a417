package swallow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"heldoutr5b/internal/store"
)

// CacheWarmer preloads hot keys into a local map before traffic is admitted.
type CacheWarmer struct {
	c      *store.Client
	mu     sync.Mutex
	cache  map[string][]byte
	warmed bool
}

// NewCacheWarmer returns an empty warmer.
// ok: swallowcancel
func NewCacheWarmer(c *store.Client) *CacheWarmer {
	return &CacheWarmer{c: c, cache: make(map[string][]byte)}
}

// put stores one warmed value.
// ok: swallowcancel
func (w *CacheWarmer) put(k string, v []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cache[k] = v
}

// Warm only looks at the success case of each Get. When the readiness
// probe's deadline cancels ctx every Get fails, the cache stays cold, and
// Warm still marks the warmer ready and returns nil.
// From: codenotary/immudb#2049
// bug: swallowcancel
func (w *CacheWarmer) Warm(ctx context.Context, keys []string) error {
	for _, k := range keys {
		v, err := w.c.Get(ctx, k)
		if err == nil {
			w.put(k, v)
		}
	}
	w.mu.Lock()
	w.warmed = true
	w.mu.Unlock()
	return nil
}

// WarmStrict skips only keys that do not exist and returns any other
// failure, so a canceled warm-up is not reported as ready.
// ok: swallowcancel
func (w *CacheWarmer) WarmStrict(ctx context.Context, keys []string) error {
	for _, k := range keys {
		v, err := w.c.Get(ctx, k)
		if err == nil {
			w.put(k, v)
			continue
		}
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		return fmt.Errorf("warm %s: %w", k, err)
	}
	w.mu.Lock()
	w.warmed = true
	w.mu.Unlock()
	return nil
}

// Item is one queued unit of work.
type Item struct {
	ID      string
	Payload []byte
}

// Queue is a channel-backed work queue.
type Queue struct {
	items chan Item
}

// NewQueue returns a queue with the given buffer.
// ok: swallowcancel
func NewQueue(n int) *Queue { return &Queue{items: make(chan Item, n)} }

// DrainInto hands up to want items to sink. On ctx.Done it breaks out of
// the labelled loop and falls through to return nil, so a shutdown midway
// looks to the batch runner like a fully drained batch.
// From: d-kuro/kubectl-fuzzy#83
// bug: swallowcancel
func (q *Queue) DrainInto(ctx context.Context, want int, sink func(Item) error) error {
	n := 0
drain:
	for n < want {
		select {
		case <-ctx.Done():
			break drain
		case it, ok := <-q.items:
			if !ok {
				break drain
			}
			if err := sink(it); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// DrainIntoReporting leaves the loop the same way for a closed queue, but
// returns ctx.Err() when it was the context that ended the drain.
// ok: swallowcancel
func (q *Queue) DrainIntoReporting(ctx context.Context, want int, sink func(Item) error) error {
	n := 0
drain:
	for n < want {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case it, ok := <-q.items:
			if !ok {
				break drain
			}
			if err := sink(it); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// Indexer rebuilds the secondary index in checkpointed batches.
type Indexer struct {
	c     *store.Client
	batch int
}

// NewIndexer returns an indexer writing a checkpoint every batch keys.
// ok: swallowcancel
func NewIndexer(c *store.Client, batch int) *Indexer {
	if batch <= 0 {
		batch = 100
	}
	return &Indexer{c: c, batch: batch}
}

// Rebuild re-indexes keys. At each checkpoint it notices the context is
// done but returns err, which the preceding check guarantees is nil, so
// the caller marks a half-built index as rebuilt.
// From: codenotary/immudb#2039
// bug: swallowcancel
func (ix *Indexer) Rebuild(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		v, err := ix.c.Get(ctx, k)
		if err != nil {
			return n, err
		}
		if err = ix.c.Put(ctx, "index/"+string(v), []byte(k)); err != nil {
			return n, err
		}
		n++
		if n%ix.batch == 0 {
			err = ix.c.Put(ctx, "index/checkpoint", []byte(strconv.Itoa(n)))
			if err != nil {
				return n, err
			}
			if ctx.Err() != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// RebuildChecked returns ctx.Err() itself at the checkpoint.
// ok: swallowcancel
func (ix *Indexer) RebuildChecked(ctx context.Context, keys []string) (int, error) {
	n := 0
	for _, k := range keys {
		v, err := ix.c.Get(ctx, k)
		if err != nil {
			return n, err
		}
		if err = ix.c.Put(ctx, "index/"+string(v), []byte(k)); err != nil {
			return n, err
		}
		n++
		if n%ix.batch == 0 {
			err = ix.c.Put(ctx, "index/checkpoint", []byte(strconv.Itoa(n)))
			if err != nil {
				return n, err
			}
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Auditor reports on record revisions.
type Auditor struct {
	c *store.Client
}

// NewAuditor returns an auditor over c.
// ok: swallowcancel
func NewAuditor(c *store.Client) *Auditor { return &Auditor{c: c} }

// CountStale counts records older than rev. When the Scan sequence yields
// its cancellation error the range loop just breaks, and the partial count
// is returned as the full answer with a nil error.
// From: cockroachdb/cockroach#96563
// bug: swallowcancel
func (a *Auditor) CountStale(ctx context.Context, prefix string, rev int64) (int, error) {
	stale := 0
	for rec, err := range a.c.Scan(ctx, prefix) {
		if err != nil {
			break
		}
		if rec.Rev < rev {
			stale++
		}
	}
	return stale, nil
}

// CountStaleChecked returns the yielded error instead of breaking.
// ok: swallowcancel
func (a *Auditor) CountStaleChecked(ctx context.Context, prefix string, rev int64) (int, error) {
	stale := 0
	for rec, err := range a.c.Scan(ctx, prefix) {
		if err != nil {
			return stale, err
		}
		if rec.Rev < rev {
			stale++
		}
	}
	return stale, nil
}

// Cursor pages through a prefix bufio.Scanner-style: Next reports false at
// the end or on failure, and Err tells the two apart.
type Cursor struct {
	c    *store.Client
	keys []string
	pos  int
	cur  []byte
	err  error
}

// NewCursor returns a cursor over keys.
// ok: swallowcancel
func NewCursor(c *store.Client, keys []string) *Cursor { return &Cursor{c: c, keys: keys} }

// Next loads the next value. Returning false on a failed Get looks like
// dropping the error, but it is kept in the cursor for Err.
// ok: swallowcancel
func (cu *Cursor) Next(ctx context.Context) bool {
	if cu.err != nil || cu.pos >= len(cu.keys) {
		return false
	}
	v, err := cu.c.Get(ctx, cu.keys[cu.pos])
	if err != nil {
		cu.err = err
		return false
	}
	cu.pos++
	cu.cur = v
	return true
}

// Value returns the current value.
// ok: swallowcancel
func (cu *Cursor) Value() []byte { return cu.cur }

// Err returns the error that stopped Next, if any.
// ok: swallowcancel
func (cu *Cursor) Err() error { return cu.err }

// TotalBytes sums value sizes through a Cursor and checks Err afterwards.
// ok: swallowcancel
func TotalBytes(ctx context.Context, c *store.Client, keys []string) (int, error) {
	cu := NewCursor(c, keys)
	total := 0
	for cu.Next(ctx) {
		total += len(cu.Value())
	}
	if err := cu.Err(); err != nil {
		return total, err
	}
	return total, nil
}
