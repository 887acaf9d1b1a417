package cancels

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// txCloser ends a transaction and the context it is bound to.
type txCloser struct {
	tx     *sql.Tx
	cancel context.CancelFunc
}

func (c *txCloser) Close() error {
	defer c.cancel()
	return c.tx.Rollback()
}

// The closer made here holds the cancel function; the failure return drops
// it, and with it the timer.
func beginBound(ctx context.Context, db *sql.DB, d time.Duration) (context.Context, *txCloser, error) {
	cl := &txCloser{}
	if d > 0 {
		ctx, cl.cancel = context.WithTimeout(ctx, d) // want `the cancel function of context.WithTimeout is not called on the path through the return when err != nil`
	} else {
		ctx, cl.cancel = context.WithCancel(ctx)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	cl.tx = tx
	return ctx, cl, nil
}

// Near-miss: the failure path calls the closer's cancel.
func beginBoundCanceled(ctx context.Context, db *sql.DB, d time.Duration) (context.Context, *txCloser, error) {
	cl := &txCloser{}
	ctx, cl.cancel = context.WithTimeout(ctx, d)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		cl.cancel()
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	cl.tx = tx
	return ctx, cl, nil
}

// Near-miss: a field of the receiver belongs to the receiver's owner.
func (c *txCloser) rebind(ctx context.Context) context.Context {
	ctx, c.cancel = context.WithCancel(ctx)
	return ctx
}

// Near-miss: the holder is handed to a method of its own, which may
// release it.
func beginClosed(ctx context.Context, db *sql.DB) error {
	cl := &txCloser{}
	ctx, cl.cancel = context.WithCancel(ctx)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		cl.cancel()
		return err
	}
	cl.tx = tx
	return cl.Close()
}

// watcher keeps the cancel function of the context its loop runs on.
type watcher struct {
	updates chan int
	cancel  context.CancelFunc
}

func (w *watcher) Close() { w.cancel() }

func (w *watcher) loop(ctx context.Context, rev int) {}

func latestRev(ctx context.Context) (int, error) { return 0, ctx.Err() }

// The watcher literal made here holds the cancel function; the failure
// return drops the watcher, and the timer with it.
func watch(ctx context.Context, d time.Duration) (*watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, d) // want `the cancel function of context.WithTimeout is not called on the path through the return when err != nil`
	w := &watcher{updates: make(chan int, 1), cancel: cancel}
	rev, err := latestRev(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	go w.loop(ctx, rev)
	return w, nil
}

// Near-miss: the failure path cancels through the watcher.
func watchCanceled(ctx context.Context, d time.Duration) (*watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	w := &watcher{updates: make(chan int, 1), cancel: cancel}
	rev, err := latestRev(ctx)
	if err != nil {
		w.cancel()
		return nil, fmt.Errorf("watch: %w", err)
	}
	go w.loop(ctx, rev)
	return w, nil
}

// Near-miss: the failure path closes the watcher with a method of its
// own.
func watchClosed(ctx context.Context, d time.Duration) (*watcher, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	w := &watcher{updates: make(chan int, 1), cancel: cancel}
	rev, err := latestRev(ctx)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("watch: %w", err)
	}
	go w.loop(ctx, rev)
	return w, nil
}

var watchers = map[string]*watcher{}

// Near-miss: the watcher is registered before anything can fail.
func watchRegistered(ctx context.Context, name string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	w := &watcher{cancel: cancel}
	watchers[name] = w
	if _, err := latestRev(ctx); err != nil {
		return err
	}
	return nil
}
