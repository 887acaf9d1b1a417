// Package wait blocks for time or for channels while honouring a
// [context.Context].
//
// Every function returns as soon as its context ends, with the error from
// [stop.Err]: it matches both ctx.Err() and [context.Cause] under
// [errors.Is]. When the context is already over at the call, the functions
// return its error without waiting, even for a zero duration or a ready
// channel, so a loop that waits each round cannot outlive its context.
// Nothing here starts a goroutine, and timers are stopped before the
// function returns.
//
// # Rejected designs
//
// [time.After] in a select was rejected: before Go 1.23 its timer lived
// until it fired even when the context ended first, and this module keeps
// Go 1.21 as its minimum. A sleep that returns ctx.Err() was rejected
// because it drops the cause.
package wait
