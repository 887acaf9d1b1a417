// Package retry runs an operation again after failures, with exponential
// backoff and jitter, within attempt and time budgets, and without ever
// retrying past the caller's cancellation.
//
// [Do] distinguishes two kinds of ending context. Each attempt may run
// under its own timeout ([Policy.PerAttempt]), derived from the caller's
// context; an attempt that ran out of its own time is an ordinary failure
// and is retried. The caller's context ending — canceled or past its
// deadline — is never retried: Do returns at once, and its error matches
// both the last attempt's error and the context's cause under
// [errors.Is].
//
// # Rejected designs
//
// Retrying on every error unless told otherwise matches what callers
// expect of a retry helper, so errors opt out with [Permanent] rather than
// opt in. A retry budget shared between calls (a token bucket) is a
// separate concern and is left to the caller. Jitter that can lengthen a
// delay was rejected so that [Policy.Max] is a hard ceiling: jitter only
// shortens a delay.
package retry
