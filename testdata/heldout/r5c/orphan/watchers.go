package orphan

import (
	"context"
	"fmt"
	"iter"
)

// Watcher follows one chain event source until its context ends.
type Watcher interface {
	Watch(ctx context.Context) error
}

// WatchAll runs every watcher and returns the first failure. All watchers
// report on one unbuffered channel; after the first report the deferred cancel
// makes every other watcher fail with context.Canceled, and each of them then
// blocks on `errCh <- ...` forever because nobody receives any more.
// From: livepeer/go-livepeer#1058
// bug: orphansend
func WatchAll(ctx context.Context, watchers iter.Seq2[string, Watcher]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errCh := make(chan error)
	for name, w := range watchers {
		go func() {
			if err := w.Watch(ctx); err != nil {
				errCh <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WatchEach is the near-miss of WatchAll: each report is a select that also
// watches ctx.Done, and the deferred cancel closes it once WatchEach returns,
// so late reporters give up instead of blocking.
// From: livepeer/go-livepeer#1058
// ok: orphansend
func WatchEach(ctx context.Context, watchers iter.Seq2[string, Watcher]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errCh := make(chan error)
	for name, w := range watchers {
		go func() {
			if err := w.Watch(ctx); err != nil {
				select {
				case errCh <- fmt.Errorf("%s: %w", name, err):
				case <-ctx.Done():
				}
			}
		}()
	}
	select {
	case err := <-errCh:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
