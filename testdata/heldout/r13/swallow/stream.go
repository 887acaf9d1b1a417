package swallow

import (
	"context"
	"sync"
)

// Row is one result row from a plugin table.
type Row map[string]any

// rowStream carries rows from the plugin to the query engine. err is set by
// the producer before rows is closed.
type rowStream struct {
	rows chan Row
	err  error
}

// Lister produces the rows of a table.
type Lister interface {
	List(ctx context.Context, emit func(Row) error) error
}

// ResultCache stores complete results by query key.
type ResultCache struct {
	mu      sync.Mutex
	entries map[string][]Row
}

// put stores a complete result.
// ok: swallowcancel
func (c *ResultCache) put(key string, rows []Row) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = rows
}

// Table serves a plugin table with caching.
type Table struct {
	lister Lister
	cache  *ResultCache
}

// produce runs the lister and records its error on the stream.
// ok: swallowcancel
func (t *Table) produce(ctx context.Context, s *rowStream) {
	defer close(s.rows)
	s.err = t.lister.List(ctx, func(r Row) error {
		select {
		case s.rows <- r:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// Query collects the stream and caches it. It never looks at the
// stream's error, so a cancelled listing is cached and returned as a
// complete, successful result.
// From: turbot/steampipe-plugin-sdk#339
// bug: swallowcancel
func (t *Table) Query(ctx context.Context, key string) ([]Row, error) {
	s := &rowStream{rows: make(chan Row)}
	go t.produce(ctx, s)
	var out []Row
	for r := range s.rows {
		out = append(out, r)
	}
	t.cache.put(key, out)
	return out, nil
}

// QueryNearMiss checks the producer's error before caching.
// ok: swallowcancel
func (t *Table) QueryNearMiss(ctx context.Context, key string) ([]Row, error) {
	s := &rowStream{rows: make(chan Row)}
	go t.produce(ctx, s)
	var out []Row
	for r := range s.rows {
		out = append(out, r)
	}
	if s.err != nil {
		return nil, s.err
	}
	t.cache.put(key, out)
	return out, nil
}
