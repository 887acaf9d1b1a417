// Package orphansend defines an Analyzer that reports goroutine sends that
// block forever because the receiver gave up.
//
// # Analyzer orphansend
//
// orphansend: report result sends that block forever after the receiver gave up
//
// A function starts a goroutine that sends its result on a channel the
// function made, then stops receiving early: a `select` takes
// `case <-ctx.Done()` or `case <-time.After(d)`, or the function returns on
// an error before it reaches the receive. The channel is unbuffered (or its
// buffer is smaller than the number of senders), so the send never
// completes and the goroutine, with everything it holds, leaks. Goroutines
// started in a loop are counted as many senders: a receive loop that
// returns at the first error abandons the rest, and a buffer of a constant
// size (`make(chan T, 1)`) holds fewer results than a loop over a
// collection starts senders. One producer that sends in a loop (`go
// func() { defer close(in); for _, r := range rows { in <- r } }()`) is
// reported when the function returns from inside its receive loop: the
// producer's next send is stranded. A goroutine that skips its send on its own
// outcome (`if err == nil { ch <- v }`, or an error sent on another
// channel) still counts as a sender: any number of them may send. A send
// that is a select's case can be given up for another case; one in the
// body of a case (`case <-ctx.Done(): ch <- result{err: ctx.Err()}`)
// blocks like any other. The
// goroutine's body may be a literal bound once to a local variable and
// started by name (`load := func() {...}; go load()`). The senders may be
// started by a goroutine the function starts (a feeder that fans the work
// out: `go func() { for _, q := range qs { go func() { ch <- run(q) }() }
// }()`): they send on the function's channel all the same. The feeder
// itself, which the function does not wait for either, is untrackedgo's:
// guarding the sends leaves it starting senders after the function has
// returned.
//
// A one-shot future is reported too: a function (or literal) that makes an
// unbuffered channel, hands it to its caller (returns it, or a value whose
// field holds it) and sends a single result on it from a goroutine it
// starts, outside any select or loop and with no close (several sends on
// exclusive paths, `if err != nil { ch <- err; return }; ch <- v`, are one
// result: no send can reach another). The send completes
// only if the caller receives, and a caller that stops waiting (a timeout,
// a canceled context, the first of several results) strands the goroutine;
// the fix gives the channel a buffer of 1. So is a race for one: several
// goroutines it starts outside its loops, each sending once on that
// channel (a result against a timer): a caller that takes the first value
// leaves the others blocked, and the fix gives the channel a slot per
// sender. A stream that the goroutine closes, and a send that selects on
// a context, are not futures.
//
// A literal bound to a local and started by several go statements (`run
// := func() { results <- r }; go run(); ... go run()`, a hedged request)
// is one sender per start.
//
// And a blind stream: a function with a context parameter (or request)
// that makes a channel, returns it, and feeds it from one goroutine whose
// sends in a loop sit outside any select. A caller that stops receiving
// before the stream ends (it returned on its own ctx.Done(), or broke out
// of its range on the value it wanted) leaves the producer blocked on its
// next send forever; the fix wraps the send in a select that returns once
// the context is done (callers cancel it when they stop). Functions with
// no context to watch, channels the function itself receives from, and
// buffered channels whose producer sends at most once per run (no path
// from a send reaches another: an error channel of capacity 1 whose send
// is followed by a return), and channels made with room for every send
// (`make(chan R, len(xs))` fed by one send per round of a `range xs` in
// the producer, which does not assign xs) are not streams.
//
// And a registered reply channel: a function makes an unbuffered channel,
// registers it in a map field or package map (`c.pending[id] = done`, or
// through a function of the package that stores its parameter there), and
// waits for the reply in a select with another arm (a Done arm, a timer, a
// default) from which a path returns without taking the entry out again
// (a delete from that map, or a call of a function of the package that
// deletes from it). Whoever finds the channel in the map later (the
// connection's reader delivering the reply) blocks on the send forever,
// and every call behind it. Fix: a buffer of 1 for the one late reply.
// Channels the function also sends on, closes, returns or captures are
// not judged.
//
// And an unguarded send beside a guarded one: a function with a context in
// reach that gives up one send when the context is done (`select { case
// w.frames <- msg: case <-ctx.Done(): return }`) and makes another on a
// channel field with no way out (`w.closeNotify <- true` after a read
// error). The function itself expects its receiver to stop once the
// context ends; this send then blocks the goroutine forever. Fields the
// package makes with a buffer are not judged. Fix: select on ctx.Done()
// beside that send too.
//
// And a send that ignores its reader's end: a bare send on a channel field
// of a value whose type also carries the end of that channel's reader,
// another field that is a channel the package closes when the reader gives
// up (`close(s.canceled)` in an unsubscribe or a context.AfterFunc, by a
// function that does not read the channel itself) or a context made part
// of the value together with the channel (`&sub{ctx: ctx, out: make(chan
// T)}`), when the sending function (or one around it) never looks at that
// field; where the package itself reads the channel, the signal counts
// only when one of those readers looks at it too (a reader that gives up
// on something else shows that the signal is not its end). Once the
// reader is gone the send blocks forever, and everything
// that waits for the sender with it (a Publish loop, a WaitGroup of
// deliveries). Fix: select on the signal beside the send. Not judged: a
// reader's own done channel, closed on its way out (it ends when the
// channel is closed; a deferred literal of the reader counts as the
// reader); an unexported channel the package never reads nor hands out
// (no reader to give up); channels the package also receives from as a bare
// statement (semaphores); the first send on a buffered channel of a value
// the function made itself, outside any loop.
//
// Bad:
//
//	func fetch(ctx context.Context, url string) (*Page, error) {
//		ch := make(chan *Page)
//		go func() { ch <- load(url) }()
//		select {
//		case p := <-ch:
//			return p, nil
//		case <-ctx.Done():
//			return nil, ctx.Err() // load's goroutine blocks on ch forever
//		}
//	}
//
// Good:
//
//	ch := make(chan *Page, 1) // one sender, one slot: the send never blocks
//
// The mirror case is reported too: a receive that never completes because
// the only sender returns on cancellation without sending or closing the
// channel.
//
// Fixes: first, give the channel a buffer of the number of senders
// (`make(chan T)` becomes `make(chan T, 1)` for one sender, `len(items)` or
// `n` when the senders are started in a loop over items or up to n, visible
// where the channel is made). Second, when a context is in reach of the
// goroutine, wrap the send in `select { case ch <- v: case <-ctx.Done(): }`.
//
// Not reported: channels whose buffer holds every send; sends inside a
// `select` (with `ctx.Done()`, a default, or another case); channels the
// owner receives from on every path before returning, once per sender
// (each receive counts: `r1, r2 := <-ch, <-ch` takes two results; one on
// the right of && or || may not run), including loops that drain one
// result per sender, and ranges ended by close; channels that
// escape the function (returned, stored, passed to another function,
// captured by a closure that is not the sender); channels received by
// another goroutine; buffers whose size is not a constant; a receiver
// that takes a case on another channel the same sender signals (a success
// channel next to an error channel: it heard from that sender); senders
// started in a loop that send only on some paths decided by shared state
// (the last one to finish, a counter: the number of sends is not the
// number of senders); a constant number of loop senders that the buffer
// holds (`for i := 0; i < 3; i++` with `make(chan T, 3)`); func values
// that are reassigned or used besides the `go` statement; owners whose
// return ends the process (main, init, and the functions main runs as its
// last act: ctxflow's MainLike).
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore orphansend the receiver always drains ch in Close
package orphansend
