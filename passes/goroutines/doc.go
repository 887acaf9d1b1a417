// Package goroutines computes, once per package, what cancelcheck's
// goroutine checks need to know about each goroutine a function starts.
//
// # Analyzer goroutines
//
// goroutines: compute how each goroutine is joined, bound or abandoned
//
// goroutines reports nothing. Its result, a *Lazy whose Get computes the
// *Result on first use (facts-only runs never pay for it), lists for every `go`
// statement of the package (and every call of a helper known to spawn its
// function argument):
//
//   - the goroutine's body (a function literal, or the called function) and
//     its owner, the function whose body starts it;
//   - the join evidence: a sync.WaitGroup it calls Done on, a channel it
//     sends on or closes, and whether the owner waits for that evidence on
//     every path to its return (control flow from ctrlflow);
//   - whether it is bound: a worker loop or a watcher that ends when a
//     context or stop channel it watches is done;
//   - the owner state it uses: the owner's context (or one derived from
//     it), the request and ResponseWriter of an http handler, and local
//     variables of the owner it writes;
//   - the orphaned result channels: channels made by the owner whose
//     senders block forever once the owner stops receiving, and receives
//     that never complete because the only sender returned on
//     cancellation.
//
// Both untrackedgo and orphansend read this result, so one goroutine is
// reported by at most one of them: a goroutine with an orphaned send is
// orphansend's.
//
// Facts, so that helpers are understood across packages:
//
//   - JoinsParam: the function calls Done on its *sync.WaitGroup parameter
//     N, or sends on or closes its channel parameter N, so a goroutine
//     running it signals through that argument;
//   - Spawns: the function starts a goroutine running its function
//     parameter N and does not wait for it, so its call sites start
//     goroutines;
//   - Bound: the function is a worker loop or watcher that returns when a
//     context or channel it is given is done.
package goroutines
