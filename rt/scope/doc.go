// Package scope runs named goroutines whose lifetime is bounded by a
// [Scope]: they share a context, the first failure cancels the others, a
// panic reaches the goroutine that waits, and a waiter that gives up learns
// which goroutines are still running.
//
// It is [golang.org/x/sync/errgroup] with three changes, each a response to
// a way goroutines outlive their caller:
//
//   - Goroutines have names and remember where they were started, so a
//     [LeakError] from [Scope.WaitContext] can say who is still running.
//   - A panic in a goroutine is recovered, cancels the others, and is
//     raised again in [Scope.Wait] as a [*PanicError] holding the original
//     value and the stack where it happened, rather than crashing the
//     process from a goroutine no caller can see.
//   - [Scope.Go] after [Scope.Wait] has returned panics, because the new
//     goroutine would run with nobody waiting for it.
//
// # Rejected designs
//
// Returning all errors joined was rejected: after the first failure the
// others are usually just reports of the cancellation it caused. A
// concurrency limit was left out; a semaphore in the caller does that and
// keeps this type small. Collecting a stack for every goroutine at start
// was rejected as too slow for the common path: the starting site is one
// program counter, and stacks are only gathered for a leak report.
package scope
