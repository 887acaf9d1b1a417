package lease

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
	"heldoutr5a/internal/httpx"
)

// Uploader bounds concurrent uploads by bytes in flight.
type Uploader struct {
	mem *semaphore.Weighted
	put func(ctx context.Context, key string, b []byte) error
}

// reserve acquires n bytes of budget and returns the matching release func. The lease leaves this
// function on purpose: the caller owns it.
// ok: leaseleak
func (u *Uploader) reserve(ctx context.Context, n int64) (release func(), err error) {
	if err := u.mem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { u.mem.Release(n) }) }, nil
}

// Upload never calls Release itself: the weight is returned by the release callback from reserve,
// deferred on the only path where the reservation succeeded.
// ok: leaseleak
func (u *Uploader) Upload(ctx context.Context, key string, b []byte) error {
	release, err := u.reserve(ctx, int64(len(b)))
	if err != nil {
		return fmt.Errorf("reserve %d bytes: %w", len(b), err)
	}
	defer release()
	return u.put(ctx, key, b)
}

// WithRequestDeadline derives a context bounded by the tighter of ctx and budget and hands the
// cancel func to the caller, who is responsible for calling it.
// ok: leaseleak
func WithRequestDeadline(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < budget {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, budget)
}

// BlobClient downloads blobs.
type BlobClient struct {
	base string
	http *http.Client
}

// OpenBlob returns the response body to the caller on success (the caller closes it) and closes it
// itself on every failure path, so no path leaves an unowned open body.
// ok: leaseleak
func (c *BlobClient) OpenBlob(ctx context.Context, key string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/blobs/"+key, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		closeErr := httpx.DrainAndClose(resp.Body)
		if closeErr != nil {
			return nil, fmt.Errorf("open blob %s: status %s (close: %w)", key, resp.Status, closeErr)
		}
		return nil, fmt.Errorf("open blob %s: status %s", key, resp.Status)
	}
	return resp.Body, nil
}

// Watcher owns a cancelable context for its lifetime; the cancel func lives in a field and Close
// calls it.
type Watcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	events chan string
}

// NewWatcher derives the watcher's context and stores the cancel func in the struct that owns it.
// ok: leaseleak
func NewWatcher(ctx context.Context) *Watcher {
	ctx, cancel := context.WithCancel(ctx)
	return &Watcher{ctx: ctx, cancel: cancel, events: make(chan string, 16)}
}

// Close cancels the watcher's context.
// ok: leaseleak
func (w *Watcher) Close() {
	w.cancel()
}

// Counters is a mutex-guarded counter set.
type Counters struct {
	mu sync.Mutex
	m  map[string]int
}

// locked runs fn with c.mu held and releases it through a deferred method value, including when fn
// panics.
// ok: leaseleak
func (c *Counters) locked(fn func(m map[string]int) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fn(c.m)
}

// IncrUnlessFrozen has several early returns inside the critical section; none of them can leak the
// lock because locked owns it.
// ok: leaseleak
func (c *Counters) IncrUnlessFrozen(key string, frozen map[string]bool) error {
	return c.locked(func(m map[string]int) error {
		if frozen[key] {
			return fmt.Errorf("counter %s is frozen", key)
		}
		if m[key] >= 1<<30 {
			return fmt.Errorf("counter %s overflow", key)
		}
		m[key]++
		return nil
	})
}
