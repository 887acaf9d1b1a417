// Package fence keeps superseded work from publishing its results.
//
// Canceling a context asks work to stop; it does not stop work that
// already finished computing and is about to write its result. A [Fence]
// closes that gap with generations: work takes a [Token] when it starts
// and publishes through [Fence.Commit], which runs only while the token's
// generation is still current. [Fence.Begin] starts a new generation and
// so supersedes all earlier work (the latest request wins);
// [Fence.Advance] supersedes earlier work without starting new work, for
// example on reset or shutdown. A stale commit is rejected with a
// [*StaleError].
//
// # Rejected designs
//
// A compare-and-swap on the generation alone, without a lock around the
// commit, was rejected: a commit could pass the check, be preempted, and
// write after an Advance returned. Commit instead holds the fence's lock
// while it runs, so once Advance returns no older commit is running or
// will run.
package fence
