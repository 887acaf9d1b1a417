package swallow

import (
	"context"
	"fmt"
	"log"
	"sync"

	"heldoutr5c/internal/store"
)

// RouteTable mirrors frontend routes from the store.
type RouteTable struct {
	db     *store.DB
	log    *log.Logger
	mu     sync.Mutex
	routes map[string]string
}

// NewRouteTable returns an empty table fed from db.
// ok: swallowcancel
func NewRouteTable(db *store.DB, logger *log.Logger) *RouteTable {
	return &RouteTable{db: db, log: logger, routes: make(map[string]string)}
}

// set records one route.
// ok: swallowcancel
func (t *RouteTable) set(rec store.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.routes[rec.Key] = string(rec.Value)
}

// Sync replays route records into the table. When the stream ends with an
// error (the final event carries ctx.Err() once the context is canceled or
// times out) it logs and returns nil, so the supervisor sees a clean exit and
// never restarts a watch that was cut off half way.
// From: vulcand/vulcand#372
// bug: swallowcancel
func (t *RouteTable) Sync(ctx context.Context) error {
	for ev := range t.db.Watch(ctx, "routes/") {
		if ev.Err != nil {
			t.log.Printf("stop watching routes: %v", ev.Err)
			return nil
		}
		t.set(ev.Rec)
	}
	return nil
}

// SyncBackends is the near-miss of Sync: the event's error is returned, so
// the supervisor learns the watch was cut short and can restart it.
// From: vulcand/vulcand#372
// ok: swallowcancel
func (t *RouteTable) SyncBackends(ctx context.Context) error {
	for ev := range t.db.Watch(ctx, "backends/") {
		if ev.Err != nil {
			t.log.Printf("stop watching backends: %v", ev.Err)
			return fmt.Errorf("watch backends: %w", ev.Err)
		}
		t.set(ev.Rec)
	}
	return nil
}
