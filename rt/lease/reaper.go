package lease

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
	"github.com/cancelcheck/cancelcheck/rt/wait"
)

// A Reaper retries cleanups that did not happen because their context
// ended. Leases made by [Reaper.Owned] are queued on the reaper when their
// Release returns a [*PendingError]; [Reaper.Reap] or [Reaper.Run] tries
// them again. A zero Reaper is ready to use. A Reaper starts no goroutines.
type Reaper struct {
	mu      sync.Mutex
	pending []*handle
}

// Owned is [Owned] for a lease whose pending cleanup is queued on r.
func (r *Reaper) Owned(release func(ctx context.Context) error) *Lease {
	l := Owned(release)
	l.h.reaper = r
	return l
}

// add queues h, whose lock the caller holds, unless it is queued already.
func (r *Reaper) add(h *handle) {
	if h.queued {
		return
	}
	h.queued = true
	r.mu.Lock()
	r.pending = append(r.pending, h)
	r.mu.Unlock()
}

// Len returns the number of queued cleanups, including any that their
// owner released since they were queued.
func (r *Reaper) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// Reap tries every queued cleanup once, in order, under ctx. A cleanup
// that succeeds leaves the queue and its lease is [Released]; one that
// fails stays queued and [Pending], whatever its error. Reap returns the
// failures joined by [errors.Join], or nil. It stops early, leaving the
// rest queued, when ctx ends.
func (r *Reaper) Reap(ctx context.Context) error {
	r.mu.Lock()
	batch := r.pending
	r.pending = nil
	r.mu.Unlock()

	var errs []error
	next := 0
	defer func() {
		// A panicking cleanup must not drop the rest of the batch.
		if next < len(batch) {
			r.requeue(batch[next:])
		}
	}()
	for next < len(batch) {
		if err := stop.Err(ctx); err != nil {
			errs = append(errs, err)
			break
		}
		h := batch[next]
		next++
		h.mu.Lock()
		h.queued = false
		if h.state != Pending { // released by its owner meanwhile
			h.mu.Unlock()
			continue
		}
		h.state = Releasing
		h.mu.Unlock()
		if err := h.run(ctx, true); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r *Reaper) requeue(hs []*handle) {
	r.mu.Lock()
	r.pending = append(hs[:len(hs):len(hs)], r.pending...)
	r.mu.Unlock()
}

// Run calls [Reaper.Reap] every interval until ctx ends, then returns
// [stop.Err](ctx). Errors from Reap are passed to report, if it is not
// nil. The caller decides which goroutine runs it and for how long.
func (r *Reaper) Run(ctx context.Context, interval time.Duration, report func(error)) error {
	for {
		if err := wait.Sleep(ctx, interval); err != nil {
			return err
		}
		if err := r.Reap(ctx); err != nil && report != nil && ctx.Err() == nil {
			report(err)
		}
	}
}
