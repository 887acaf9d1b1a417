// Package stop names why work stopped and keeps the cause of a
// cancellation attached to the errors that report it.
//
// The [context] package records two facts about a finished context: which
// mechanism ended it ([context.Context.Err] is [context.Canceled] or
// [context.DeadlineExceeded]) and, since Go 1.20, why ([context.Cause]).
// Code that reports only ctx.Err() loses the why; code that reports only
// the cause loses the mechanism, and a cause such as [ErrShutdown] handed
// to a deadline makes a timeout look like a cancellation. This package keeps
// both:
//
//   - [Err] and [Wrap] build errors that [errors.Is] matches against the
//     mechanism, the cause and the original error at once.
//   - [Classify] turns an error and the context it ran under into a
//     [Reason] without string matching.
//   - [WithCancel], [WithTimeout], [WithDeadline] and [Shutdown] are thin
//     wrappers over the context package that always record a cause.
//
// # Rejected designs
//
// A single error type with a Reason field was rejected: callers already
// test errors with [errors.Is], and a new type would force them to
// [errors.As] it out first. The errors built here unwrap to the standard
// sentinels instead, so code that never heard of this package keeps
// working.
package stop
