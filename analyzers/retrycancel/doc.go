// Package retrycancel defines an Analyzer that reports retry, poll and
// reconnect loops that keep going after their context is done.
//
// # Analyzer retrycancel
//
// retrycancel: report retry and poll loops that keep going after their context is done
//
// A retry loop (for {}, for cond {}, a counted loop that indexes nothing, a
// range over an integer, a ticker, or a function iterator that yields only
// durations or integers, a schedule: analysisutil.IsRetryLoop) that calls a
// context-bound function and, when it fails, tries again without looking at
// the context never stops on cancellation: every attempt fails at once with
// context.Canceled, and the loop spins, logs and sleeps until its attempts
// run out, or forever. Its goroutine outlives the request or the shutdown
// that canceled it.
//
// One finding per loop, the first that applies:
//
//   - a `case <-ctx.Done():` of the loop's select that cannot leave the
//     loop (every path from it comes back to the select without a return,
//     a break out of the loop, the head of a loop with a condition or a
//     range, or another look at the context such as a ctx.Err() test at
//     the top of the round, when it looks at that context or one made from
//     it: a test of the request's ctx does not see the client's own
//     c.ctx end, and while ctx lives its branch is not taken; another arm's return when a result arrives
//     does not count, since the Done arm stays ready) and waits for
//     nothing (no channel operation, select, time.Sleep or helper with the
//     sleeps fact, nor the Wait of a sync.WaitGroup, sync.Cond or
//     errgroup.Group in it), for a
//     context from outside the loop that the loop does not reassign (nor
//     its Done channel: `done = nil` stops listening): once the context has
//     ended the receive is always ready, so the select never waits again
//     and the loop spins, running the case over and over. The fix
//     returns at the end of the case, in place of a trailing break or
//     continue (the cause, for a function with an error result);
//   - the loop retries when the error is context.DeadlineExceeded or
//     context.Canceled (or gRPC's codes.DeadlineExceeded or codes.Canceled)
//     of a context from outside the loop; retrying the DeadlineExceeded
//     of a per-attempt timeout derived inside the loop is fine only when
//     the loop also tests the outer context, whose end gives the same
//     error to every attempt;
//   - the loop's wait is time.Sleep, a bare `<-time.After(d)`, a bare
//     `<-ticker.C`, a select over timers only (or over a timer and
//     wake-ups: unexported channel fields of the package that it never
//     closes and whose case does not leave, such as a notify channel sent
//     on when there is new work; a channel the package closes, or whose
//     case returns, is a stop), a call of a context-less
//     backoff helper (a body of at most three statements that computes a
//     duration and ends with time.Sleep, known across packages by the
//     sleeps fact), or the loop ranges over a ticker, while a context is in
//     reach: the wait cannot be interrupted (a ticker loop that makes a
//     goroutine never end is untrackedgo's finding, not this check's),
//     and when the loop has no other context check it retries after
//     cancellation too (a constant pause under 100ms in a loop that does
//     check is not reported, nor a pause followed by return or break,
//     possibly after leaving an if or case body, which is on the way out);
//     a loop without bound calls is a poll, and reported, only when it does
//     work between its waits (a call other than its sleeps, builtins,
//     conversions, looks at a context and formatting or logging; a go
//     statement; a send; a polling condition like `for !ready()`), bounded
//     or not: a loop that only sleeps and counts is a delay, one that only
//     sleeps forever a deliberate hang, and one that ends on its errors an
//     accept loop;
//   - the loop calls a context-bound function whose error may carry
//     cancellation and never checks the context, so its only exits are
//     success, an attempt counter, or errors other than cancellation.
//
// Whether a loop looks at its context is asked of the control flow: every
// round the loop can go after the context ended (branches taken only on
// success or for another specific error are not taken then) must pass a
// look that leaves: an if or loop condition on ctx.Err() whose branch leaves
// the loop, a select whose `case <-ctx.Done():` arm leaves it. A `continue`
// routed around the only check, a Done arm that only breaks the select, a
// check that is logged and a test for Canceled alone (a deadline goes on)
// leave a round open, and the loop is reported as looking at its context on
// some rounds only. A round through the non-nil branch of a nil test (`if
// c.current == nil { select on ctx.Done() ... }`) that always sets that
// variable or field to nil, in a loop that sets it otherwise only on the
// other branch and cannot change it another way (an assignment to c, a
// method of c, its address), cannot be taken twice in a row: the next
// round takes the other branch, and its check counts.
//
// A retry written as recursion is reported too: a function that, after a
// context-bound call of its own fails, waits and calls itself again on a
// path with no look at the context (recursion on success, a walk over a
// tree, and a recursion without a wait, a one-off repair, are not retries).
//
// A wait on a sync.Cond in a loop that tests a context parameter of its
// function (a ctx.Err() test, a Done receive, a helper with the
// checks-context fact) is reported at the Wait when the function sets up
// no wake-up for that context's end: Wait returns only when another
// goroutine calls Broadcast or Signal, so the loop's test runs only after
// a wake-up, and once the context is done the loop waits on until someone
// happens to wake it, forever if nobody does. A wake-up is a
// context.AfterFunc in the function (or in its enclosing function, for a
// literal) whose callback, a literal or a function of the package,
// broadcasts or signals the same condition, or a goroutine literal that
// does; one registered by another method answers another context. The fix
// registers `stop := context.AfterFunc(ctx, func() { c.L.Lock();
// c.Broadcast(); c.L.Unlock() })` and `defer stop()` at the top of the
// function, when the condition can be named there.
//
// Retry and poll helpers that take no context are reported where one is in
// reach: github.com/cenkalti/backoff (Retry, RetryNotify,
// RetryNotifyWithTimer without backoff.WithContext), github.com/avast/retry-go
// (Do, DoWithData without retry.Context) and
// k8s.io/apimachinery/pkg/util/wait (Poll, PollImmediate, PollInfinite,
// PollImmediateInfinite, ExponentialBackoff, Forever, and Until, JitterUntil,
// NonSlidingUntil, PollUntil, PollImmediateUntil, BackoffUntil unless their
// stop channel is a context's Done()).
//
// Bad:
//
//	for {
//		err := client.Ping(ctx)
//		if err == nil {
//			return nil
//		}
//		log.Printf("ping: %v", err)
//		time.Sleep(backoff)
//	}
//
// Good:
//
//	for {
//		err := client.Ping(ctx)
//		if err == nil {
//			return nil
//		}
//		log.Printf("ping: %v", err)
//		if err := wait.Sleep(ctx, backoff); err != nil {
//			return err
//		}
//	}
//
// Fixes: for a sleep (time.Sleep or <-time.After), replace it with a
// select on ctx.Done() and time.After that returns the function's zero
// values and context.Cause(ctx) (ctx.Err() before Go 1.20), or with
// wait.Sleep from github.com/cancelcheck/cancelcheck/rt/wait (offered only
// when the package's build already resolves the runtime module); for a
// receive from a ticker, replace it with a select on ctx.Done() and the
// ticker; for a select over timers, add a ctx.Done() case; for a loop with
// no check or a ticker range, add a context check at the top of the loop
// body. Each returns the zero values and the cause, and resolves every
// problem of the loop at once. A call of a sleeping helper gets no fix: the
// helper must take the context. For backoff.Retry, wrap the policy with backoff.WithContext; for
// retry.Do, add retry.Context(ctx). Fixes that return are offered only when
// the function's results can be spelled (it has an error result, or no
// results).
//
// It also reports a call of a context-less retry helper (ctxflow's
// RetriesCallback fact, computed from the helper's body in any package: a
// loop that calls its callback parameter and waits between the calls)
// given a function literal that uses the caller's context: once the
// context ends each attempt fails at once, and the helper goes on calling
// and sleeping until its attempts run out. The libraries named above are
// judged by their own rule, which knows how their policies take a context
// (backoff.WithContext), not by this fact.
//
// Not reported: a loop that checks the context (ctx.Err(), ctx.Done() in a
// select or a receive, context.Cause, errors.Is(err, context.Canceled) or
// DeadlineExceeded in a test that leaves the loop, or a call of a helper that
// checks its context parameter and returns no error, known across packages by
// the checksContext fact); a loop that leaves on the bound call's error
// (returns it, wraps it, or returns or breaks under `err != nil` or an
// unknown classifier such as `!retryable(err)`: a predicate whose body
// says true for a cancellation, such as one that retries every error but
// a permanent one, is known, by ctxflow's ClassifiesCancel fact, not to
// leave then; the default clause of a tagless switch with a `case err !=
// nil:` is taken on success only, and its return is no such exit); a loop
// whose every round passes a branch taken only for a specific other error (`errors.As(err,
// &pgErr) && pgErr.Code == "40P01"`, `errors.Is(err, ErrBusy)`) leaves at
// the first failure after the context ends, so only a wait under way is
// reported ("still sleeps out its backoff"); a loop with an exit on a
// receive from a stop channel (a Done channel kept in a variable, `done :=
// ctx.Done()`, is the context's) — except a field of an object (`case
// <-c.closed:`) while the attempts run under a context parameter: the
// caller's context can end long before the object closes, and the loop is
// reported as retrying until the channel is closed; a loop whose condition classifies the error
// (`for i < 2 && retryable(err)`); a range over a schedule made by a call
// given the context (`for range b.Attempts(ctx)`), which can stop
// yielding when the context ends; loops over collections, bound calls
// inside a nested walk over a collection, and bound calls whose arguments
// are loop-carried (declared outside the loop and assigned inside it: a
// walk over pages or versions, not a retry) when every round after a
// failure assigns them (a round that fails and goes back without advancing,
// `if err != nil { log(err); continue }` before `r.start += n`, asks for
// the same thing again, and is a retry), or taken each round from a
// source the loop drains (`e := q.Next(now); if e == nil { return }`: a
// different element every round until none is left), or read from the
// iterator the loop's condition advances (`for itr.Next() { e :=
// itr.Entry(); ... }`) (swallowcancel's business);
// calls on a root context (context.Background(): detachedctx's business); loops
// whose only context is a local context.Background() or TODO(), or a
// local WithCancel of one whose cancel function only a defer calls (it
// never ends while the loop runs), or a parameter every caller gives such
// a root (`ctx, span := tracer.Start(context.Background(), ...)` adds
// values only: ctxflow's DetachedParam); functions with no context in reach and no bound call; and _test.go
// files (set include_tests to check them). A test that decides whether the
// bound call runs (`if blocked { if err := wait(ctx); err != nil { return
// err } }`) does not count as a guard of its failure.
//
// In a loop over a collection (retry loops are judged by the rules above),
// it reports a `case <-ctx.Done():` of a select directly in the loop whose
// last statement is an unlabelled break: the break leaves the select, not
// the loop, so once ctx is done the loop goes on with its next element and
// each round takes the Done case or the work (a send that finds room) at
// random. Not reported when every way from the case back to the select
// passes a look at that context (a ctx.Err() test that returns) or leaves
// the loop. The fix breaks out of the loop under its label, adding one
// (`loop:`) when it has none.
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore retrycancel the probe must keep trying until the process exits
package retrycancel
