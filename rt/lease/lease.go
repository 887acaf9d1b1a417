package lease

import (
	"context"
	"errors"
	"sync"

	"github.com/cancelcheck/cancelcheck/rt/stop"
)

// ErrReleased is returned by [Lease.Release] when the cleanup has already
// succeeded, has failed for good, or is running in another call.
var ErrReleased = errors.New("lease: already released")

// ErrNotOwner is returned by [Lease.Release] on a lease whose ownership was
// handed on by [Lease.Transfer].
var ErrNotOwner = errors.New("lease: not the owner")

// ErrPending is matched by a [*PendingError].
var ErrPending = errors.New("lease: cleanup pending")

// A Lease is the right to release one resource. The lease returned by
// [Owned] is its owner; only the owner's [Lease.Release] runs the cleanup.
//
// A zero Lease, or a nil *Lease, owns nothing: its Release does nothing and
// returns nil. A Lease is safe for concurrent use.
type Lease struct {
	h *handle
}

// handle is the resource, shared by every Lease and Borrowed view of it.
type handle struct {
	mu      sync.Mutex
	owner   *Lease
	state   State
	err     error // the cleanup's last error
	release func(ctx context.Context) error
	reaper  *Reaper // receives the handle when it becomes Pending
	queued  bool    // in reaper's queue
}

// Owned returns the owning lease of a resource whose cleanup is release.
// A nil release means there is nothing to clean up.
func Owned(release func(ctx context.Context) error) *Lease {
	if release == nil {
		release = func(context.Context) error { return nil }
	}
	l := new(Lease)
	l.h = &handle{owner: l, release: release}
	return l
}

// Release runs the cleanup under ctx, if l owns the resource and the
// cleanup has not yet succeeded. It returns:
//
//   - nil when the cleanup succeeded; later calls return [ErrReleased];
//   - a [*PendingError] when the cleanup failed and ctx had ended: the
//     resource may still be held, the state is [Pending], a later Release
//     tries again, and a lease from [Reaper.Owned] is queued on its reaper;
//   - the cleanup's error when it failed while ctx was live: the state is
//     [Failed] and later calls return [ErrReleased];
//   - [ErrReleased] when the cleanup already succeeded, failed for good or
//     is running in another call, and [ErrNotOwner] when l gave ownership
//     away with [Lease.Transfer].
//
// The cleanup is called even if ctx has already ended, since some
// cleanups do not need it; one that panics leaves the lease [Failed].
func (l *Lease) Release(ctx context.Context) error {
	if l == nil || l.h == nil {
		return nil
	}
	h := l.h
	h.mu.Lock()
	if h.owner != l {
		h.mu.Unlock()
		return ErrNotOwner
	}
	if h.state != Held && h.state != Pending {
		h.mu.Unlock()
		return ErrReleased
	}
	h.state = Releasing
	h.mu.Unlock()
	return h.run(ctx, false)
}

// run calls the cleanup of a handle its caller moved to Releasing and
// records the outcome. For the reaper (reaping), every failure leaves the
// handle Pending and queued again.
func (h *handle) run(ctx context.Context, reaping bool) error {
	finished := false
	defer func() {
		if !finished { // the cleanup panicked
			h.mu.Lock()
			h.state = Failed
			h.mu.Unlock()
		}
	}()
	err := h.release(ctx)
	finished = true

	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.state, h.err = Released, nil
		return nil
	case reaping:
		h.state, h.err = Pending, err
		h.reaper.add(h)
		return err
	case ctx.Err() != nil:
		h.state, h.err = Pending, err
		pe := &PendingError{Err: err, Cause: stop.Err(ctx)}
		if h.reaper != nil {
			pe.Reaper = true
			h.reaper.add(h)
		}
		return pe
	default:
		h.state, h.err = Failed, err
		return err
	}
}

// Transfer hands ownership to a new Lease, which it returns, and leaves l
// inert: l's Release returns [ErrNotOwner]. The state of the resource is
// unchanged. If l does not own the resource, the returned Lease does not
// either. Transferring a zero Lease returns a zero Lease.
func (l *Lease) Transfer() *Lease {
	if l == nil || l.h == nil {
		return new(Lease)
	}
	n := &Lease{h: l.h}
	l.h.mu.Lock()
	if l.h.owner == l {
		l.h.owner = n
	}
	l.h.mu.Unlock()
	return n
}

// Owns reports whether l is the current owner of its resource.
func (l *Lease) Owns() bool {
	if l == nil || l.h == nil {
		return false
	}
	l.h.mu.Lock()
	defer l.h.mu.Unlock()
	return l.h.owner == l
}

// State returns the state of the resource. A zero Lease is [Released].
func (l *Lease) State() State {
	if l == nil {
		return Released
	}
	return l.Borrow().State()
}

// Borrow returns a view of the resource that can watch its state but not
// release it. The view follows the resource through transfers.
func (l *Lease) Borrow() Borrowed {
	if l == nil {
		return Borrowed{}
	}
	return Borrowed{l.h}
}

// A Borrowed is a view of a leased resource for code that uses it but
// must not release it. A zero Borrowed views nothing and is [Released].
type Borrowed struct {
	h *handle
}

// State returns the state of the resource.
func (b Borrowed) State() State {
	if b.h == nil {
		return Released
	}
	b.h.mu.Lock()
	defer b.h.mu.Unlock()
	return b.h.state
}

// Held reports whether the resource is still held with no cleanup
// started, that is whether it is still safe to use.
func (b Borrowed) Held() bool { return b.State() == Held }

// A PendingError reports a cleanup that did not happen because its
// context ended. [errors.Is] matches it against [ErrPending], the
// cleanup's error, and the context's error and cause.
type PendingError struct {
	// Err is the cleanup's error.
	Err error
	// Cause is the end of the cleanup's context, as [stop.Err] reports it.
	Cause error
	// Reaper is true when the lease was queued on a [Reaper].
	Reaper bool
}

func (e *PendingError) Error() string {
	s := "lease: cleanup pending (" + e.Cause.Error() + "): " + e.Err.Error()
	if e.Reaper {
		s += " (queued for the reaper)"
	}
	return s
}

// Unwrap returns [ErrPending], Err and Cause.
func (e *PendingError) Unwrap() []error { return []error{ErrPending, e.Err, e.Cause} }
