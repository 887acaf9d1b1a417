package handoff

import (
	"context"
	"errors"
	"sync"
	"time"
)

type fetcher struct {
	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	download func(ctx context.Context, mod string) ([]byte, error)
	cancel   context.CancelFunc
}

// fetch registers the cancel so an admin can abort the download, and takes
// the entry back itself on success only: a failed download leaves its
// entry and its context behind.
func (f *fetcher) fetch(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // want `the cancel function of context.WithTimeout is not called on the path through the return`
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	data, err := f.download(ctx, mod)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	delete(f.inflight, mod)
	f.mu.Unlock()
	cancel()
	return data, nil
}

// fetchReleased takes the entry back and cancels on every path.
func (f *fetcher) fetchReleased(ctx context.Context, mod string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, mod)
		f.mu.Unlock()
		cancel()
	}()
	return f.download(ctx, mod)
}

// register hands the cancel to the map for good: whoever removes the entry
// calls it.
func (f *fetcher) register(ctx context.Context, mod string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	f.inflight[mod] = cancel
	f.mu.Unlock()
	return ctx
}

// replace deletes a different entry than the one it registers.
func (f *fetcher) replace(ctx context.Context, mod, old string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	f.mu.Lock()
	delete(f.inflight, old)
	f.inflight[mod] = cancel
	f.mu.Unlock()
	return ctx
}

// start keeps the cancel in a field while it works and clears it on the
// way out, but a failed first step returns with the field still set and
// the context never canceled.
func (f *fetcher) start(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx) // want `the cancel function of context.WithCancel is not called on the path through the return`
	f.cancel = cancel
	if _, err := f.download(ctx, "first"); err != nil {
		return err
	}
	f.cancel = nil
	cancel()
	return nil
}

// startOwned hands the cancel to the field for Stop to call.
func (f *fetcher) startOwned(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	if _, err := f.download(ctx, "first"); err != nil {
		cancel()
		return errors.New("first download failed")
	}
	f.cancel = cancel
	return nil
}

// Close ends what startOwned started.
func (f *fetcher) Close() {
	if f.cancel != nil {
		f.cancel()
	}
}
