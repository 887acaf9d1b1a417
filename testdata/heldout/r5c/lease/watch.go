// Package lease holds examples of leases (cancel funcs, bodies, rows, locks,
// semaphores, tickers, spans) that are not released on every path.
package lease

import (
	"context"
	"fmt"

	"heldoutr5c/internal/store"
)

// Watcher follows a prefix from a known revision; Close releases its context.
type Watcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	rev    int64
}

// Close cancels the watcher's context.
// ok: leaseleak
func (w *Watcher) Close() {
	w.cancel()
}

// OpenWatcher starts a watch with its own cancelable context and hands cancel
// to the Watcher for Close. When the initial revision read fails it returns
// without calling cancel, so every failed open leaks the derived context's
// registration with its parent.
// From: projectcalico/calico#6187
// bug: leaseleak
func OpenWatcher(ctx context.Context, db *store.DB, prefix string) (*Watcher, error) {
	wctx, cancel := context.WithCancel(ctx)
	rev, err := db.Get(wctx, prefix+"/_rev")
	if err != nil {
		return nil, fmt.Errorf("initial revision: %w", err)
	}
	return &Watcher{ctx: wctx, cancel: cancel, rev: rev.Version}, nil
}

// OpenFollower is the near-miss of OpenWatcher: the error path calls cancel
// before returning; on success cancel is owned by the Watcher.
// From: projectcalico/calico#6187
// ok: leaseleak
func OpenFollower(ctx context.Context, db *store.DB, prefix string) (*Watcher, error) {
	wctx, cancel := context.WithCancel(ctx)
	rev, err := db.Get(wctx, prefix+"/_rev")
	if err != nil {
		cancel()
		return nil, fmt.Errorf("initial revision: %w", err)
	}
	return &Watcher{ctx: wctx, cancel: cancel, rev: rev.Version}, nil
}
