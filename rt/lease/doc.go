// Package lease makes the owner of a cleanup explicit: one [Lease] owns the
// right to release a resource, views made with [Lease.Borrow] can watch it
// but not release it, and [Lease.Transfer] hands the right to a new owner
// and leaves the old one inert.
//
// Releasing takes a context, because cleanups talk to other systems and
// must not hang forever. A cleanup that fails because its context ended has
// not happened, and reporting it as a plain cancellation would hide a
// leak. Such a lease moves to [Pending]: [Lease.Release] returns a
// [*PendingError], the state says so, and a [Reaper] can retry the cleanup
// later under a context of its own.
//
// # Rejected designs
//
// Releasing through a finalizer was rejected: it runs late or never, on a
// goroutine nobody waits for, without a context. A Reaper that starts its
// own goroutine was rejected in favour of [Reaper.Run], which the caller
// runs and stops, so no goroutine outlives its owner.
package lease
