// Package swallowcancel defines an Analyzer that reports errors which may
// carry a context's cancellation and are dropped or turned into success.
//
// # Analyzer swallowcancel
//
// swallowcancel: report cancellation errors that are dropped or turned into success
//
// When the caller's context is canceled, the errors of context-bound calls
// (calls that pass a context or request, or that carry cancellation by a
// fact) say so. A request carries a caller's context only if one can reach
// it: in a function with no context in reach, a request made by any helper,
// function value or literal holds none, and the errors of sending it are
// not reported. Code that drops such an error, or maps it to nil, tells its
// caller the work completed although it was abandoned half-way: a batch
// reports success with half its items written, a loop keeps hammering a
// backend with calls that fail at once, a shutdown is logged as a clean run.
//
// The check reports, for an error that may carry cancellation
// (ctxflow's MayCarryCancel):
//
//   - a drop: `_ = f(ctx)`, `v, _ := f(ctx)`, or a bare `f(ctx)` statement,
//     in a function that returns an error (a bare call that is the last
//     statement of its function is not reported), or anywhere inside a loop
//     over a collection; in a function without results, a bare call
//     followed by work that assumes it succeeded (`sem.Acquire(ctx, 1)`
//     then the guarded work);
//   - a branch that tests the error and returns a nil error:
//     `if err != nil { log(err); return nil }`, or that only logs and breaks
//     out of a loop (`for p, err := range store.Scan(ctx) { if err != nil {
//     break } ... }`) when the statements after the loop reach a return of
//     a nil error without a context test, context-bound work or a read of
//     the error: what was gathered before the cancellation is returned as
//     the whole answer;
//   - a cancellation test mapped to success: `case <-ctx.Done(): return nil`,
//     `case <-ctx.Done(): break loop` followed by `return nil`, and any
//     cancellation test whose branch ends in a break out of a loop,
//     labelled or not (`if errors.Is(err, context.Canceled) { break }`),
//     when the statements after the loop reach a nil return without
//     looking at the context again or doing context-bound work,
//     `if ctx.Err() != nil { return nil }`,
//     `if errors.Is(err, context.Canceled) { return nil }`,
//     `if errors.Is(err, context.Canceled) { err = nil }`, and the switch
//     forms: `case errors.Is(err, errNotFound), errors.Is(err,
//     context.Canceled): return nil` (a case taken when any of its
//     expressions holds) and `switch err { case context.Canceled: return
//     nil }`; an error variable nil on every path to the return counts as
//     nil (`return n, err` past `if err != nil { return 0, err }`: passes/flow's
//     NilAt); a bare return counts as returning nil when the named error
//     result is never assigned, or its last assignment before the return,
//     in the same block, sets it to nil (not when a closure mentions it or
//     its address is taken);
//   - a skip sentinel returned from a `case <-ctx.Done():` clause of a
//     callback given to a standard tree walk (`return filepath.SkipAll` in
//     filepath.WalkDir's function; knowledge.Walker): the walk stops and
//     returns nil, so its caller sees a finished walk (not when the
//     function calling the walk looks at the context after it; fix: return
//     ctx.Err());
//   - in a method whose select waits, outside any loop, on a context
//     field of its receiver (`case <-u.ctx.Done():`, one operation such as
//     a Write or a Send, not a teardown), a return that gives a result
//     that is not a zero value with a nil error (`return len(p), nil`):
//     the caller is told the operation was done although it was
//     abandoned (a loop that serves for the receiver's lifetime stops
//     cleanly with its context, and `return nil, nil` is a documented
//     "stopped" for some types: neither is judged; fix: return the
//     context's error);
//   - in a `case <-ctx.Done():` clause, pending work completed as a
//     success: a call of a function value (a callback field, parameter or
//     variable) given nil for an error parameter (`r.Done(nil)`), or a send
//     of nil on a channel of errors; whoever waits on it is told the work
//     was done (fix: pass ctx.Err());
//   - in a method without an error result, a `case <-ctx.Done():` clause
//     or a test that holds once the context has ended (`if ctx.Err() !=
//     nil`) from which the method can return without recording an error in
//     the receiver (an iterator's Next returning false with its error field
//     unset ends the iteration as complete; so does the body of an
//     iterator the method returns, `return func(yield func(T) bool) {
//     ... }`: a function literal of a method, without an error result,
//     records in the method's receiver),
//     when the method records its other failures there and the type hands
//     that field out (an error field that a method without parameters
//     returns, an Err accessor; recorded by assigning it or calling the
//     type's method that sets it from an error parameter, not counting a
//     deferred one): whoever waits on the work reads a nil error for work
//     that was canceled (fix: call the setter with ctx.Err(), or assign it
//     to the field when the type has no setter);
//   - a test that the function's context has ended (`if ctx.Err() !=
//     nil`, outside loops) whose branch neither leaves nor sets an error
//     the function returns, only notes the end (a log, a field of the
//     result), when every return reachable from the branch gives a nil
//     error: the function saw that it was canceled and reports the work
//     done (fix: return the next return's results with ctx.Err(), when
//     that return follows the branch);
//   - a dead store: the error assigned to a variable that every path
//     overwrites before anything reads it (`v, err := f(ctx); _, err =
//     w.Write(v)`), asked of the control-flow graph (variables a function
//     literal mentions, or whose address is taken, are left alone);
//   - a deferred function literal that sets the named error result to nil
//     (unless a condition around it tests the error for nil or for a
//     specific error other than the context's), or overwrites it outside
//     any condition with a value not derived from it (`err = w.Close()`),
//     in a function that may return a cancellation after the defer is
//     registered (a return before the defer statement is out of its
//     reach): the defer runs after the return and its value is what the
//     caller sees;
//   - a failure branch that lets cancellation through to a success return
//     with the call's results: `if err != nil && !errors.Is(err,
//     context.Canceled) { return nil, err }` (or `err != context.Canceled`)
//     followed, with no context-bound call, context test or use of err on
//     the way, by a return of a nil error and at least one result that is
//     not a zero value: the caller gets values built from a canceled call
//     (a function that returns only its error, or zero values, is not
//     reported: cancellation as a Run's stop is a convention), or, in a
//     function that returns only its error, by a return of a call given
//     another result of the filtered call (`return save(ctx, res)`): the
//     half-done result is recorded as finished;
//   - in code that runs once a context x has ended (`case <-x.Done():`,
//     the branch of `if x.Err() != nil`), a return of another context's
//     error, y.Err() or context.Cause(y), when y does not end whenever x
//     does (y is neither x nor made from it; a parent of x need not have
//     ended): while y lives its Err is nil, so the function returns a nil
//     error with its zero results (fix: return x.Err());
//   - a loop guarded by `x.Err() == nil` (alone or as a conjunct of its
//     condition) whose exit, taken once x is done, reaches with no look at
//     x a return of a nil error beside a non-zero result (what it gathered
//     so far, returned as complete; fix: return x.Err() there), or, in an
//     iterator body (a literal taking yield func(T, error) bool), the end
//     of the sequence without a yield (a truncated sequence looks
//     complete); a function whose only result is its error may stop
//     quietly this way; and in an iterator body, a branch on a context's
//     end (`if ctx.Err() != nil { return }`) that returns without yielding
//     anything (one finding per sequence);
//   - in a loop over a collection, a branch that only logs the error and
//     goes on to the next item (an if, or a clause of a tagless switch
//     taken on failure: `case err != nil:`, or the default of a switch with
//     a `case err == nil:` and no case that tests for cancellation), or that skips canceled items
//     (`if errors.Is(err, context.Canceled) { continue }`); over a function
//     iterator made by a context-bound call (`for p, err := range
//     walk(ctx, root)`), the error it yields is such an error, reported
//     when the function then returns a nil error;
//   - outside loops, a branch that only logs the error (a call of the log
//     packages or of a logger; also a call through a function value of
//     printf shape, `func(format string, args ...any)` with no results,
//     such as a logf field) when the function
//     then returns a nil error with no further context-bound work;
//   - a retry loop whose condition stops on the end of the context
//     (`ctx.Err() == nil`, or a bool helper of the package that tests it,
//     such as a retrier's Next reading its context field) followed by a
//     return of a variable declared nil before the loop that nothing set:
//     when the context ended before the first attempt, the function
//     returns nil for work that never ran;
//   - an iterator whose Err is never read: `for rows.Next() { ... }` on a
//     local whose type has `Next(...) bool` and `Err() error` (sql.Rows and
//     drivers' cursors), made by a call whose error may carry cancellation
//     or advanced by Next(ctx), in a function that returns an error: a
//     query canceled half-way ends the loop early and the function returns
//     a partial result with a nil error (not reported when the iterator is
//     returned, passed on or stored, nor when the function returns or tests
//     the error of its Close and that Close reports the iteration's error:
//     the iterator is an interface, as litestream's file iterators are, or
//     a type of the package whose Close returns the field its Err returns;
//     sql.Rows' Close does not);
//   - a shadowed report: a goroutine or callback literal with no error
//     result declares, with :=, an error variable over one of the function
//     around it (`raw, err := c.Do(ctx, req)` inside `go func() {...}()`),
//     when that function tests its own variable after the literal, the
//     literal never assigns it, and the inner error stays in the literal
//     (compared with nil, logged): the cancellation never reaches the
//     test, which always sees nil; and the same in a block of one
//     function (a loop body, an if) whose own err is only tested (with
//     nil, errors.Is or errors.As) before the block is left for a test or
//     return of the outer err (`_, err := f(ctx)` in a retry loop that
//     breaks out to `return err`, a loop shadowing the named result);
//
// Bad:
//
//	func (s *Syncer) SyncAll(ctx context.Context, ids []string) error {
//		for _, id := range ids {
//			if err := s.sync(ctx, id); err != nil {
//				log.Printf("sync %s: %v", id, err)
//			}
//		}
//		return nil
//	}
//
// Good:
//
//	func (s *Syncer) SyncAll(ctx context.Context, ids []string) error {
//		for _, id := range ids {
//			if err := s.sync(ctx, id); err != nil {
//				if err := ctx.Err(); err != nil {
//					return err
//				}
//				log.Printf("sync %s: %v", id, err)
//			}
//		}
//		return nil
//	}
//
// Fixes: a shadowing `err := f(ctx)` that declares nothing else becomes
// `err = f(ctx)`; a deferred overwrite becomes `if cerr := w.Close(); err == nil {
// err = cerr }`; return the error (or ctx.Err()) with the function's zero values in
// place of the nil (in a switch case shared with other errors, remove the
// cancellation test from the case instead); turn a dropped call into `if err := f(ctx); err != nil
// { return ..., err }`; in a loop, insert `if err := ctx.Err(); err != nil
// { return ..., err }` so the loop stops (in a `go func() { ... }()` with
// nothing to return, no bare return is inserted, since untrackedgo's fix may
// give the literal an error result: the fix breaks out of the loop when the
// loop is the literal's last statement, else there is none); `break loop`
// becomes the return, and when no other use of the label is left the label
// goes too (with, for a `for {}` then left only by returns, the statements
// after it, which would be unreachable). When the package already uses the
// reference runtime (github.com/cancelcheck/cancelcheck/rt), a second fix
// uses stop.Err(ctx), which keeps both ctx.Err() and the cause.
//
// Not reported, because the code may end quietly on cancellation:
//
//   - functions of package main: there cancellation is the program's
//     shutdown, and main treats it as a clean exit;
//   - functions whose doc comment promises it: a clause whose subject is
//     the function (its name, or "it", possibly after a leading condition)
//     and whose verb is "returns nil" (or a nil error, no error), with
//     cancel, shutdown, stop, done, close, exit or the context as its
//     condition (after when, if, once, on, after or upon, or in the
//     leading condition: "Run returns nil when ctx is canceled", "On
//     shutdown it returns nil"; "ctx must not be nil" promises nothing,
//     nor does a sentence describing the code: "... and Sync still returns
//     nil after a shutdown", "Flush returns nil and the process exits as
//     if everything shipped"), a clause
//     saying the function runs, blocks, serves, watches (...) until the
//     context is canceled, done or closed ("Watch blocks until ctx is
//     canceled"), or one saying the work is best-effort; literals inside
//     such functions inherit the contract;
//   - literals run by (*errgroup.Group).Go: the group's Wait returns the
//     error that canceled its context (that Wait is itself a carrier, for
//     a group made by errgroup.WithContext or the runtime's scope.New with
//     a context that can end: dropping or only logging its error is
//     reported); but a literal's nil on the group context's Done is
//     reported when its owner, given a caller's context, returns results
//     besides its error and tests no context on any path after Wait: on
//     the caller's cancellation every goroutine returns nil, Wait returns
//     nil, and what they produced is returned as complete. A function of
//     the package that only such literals call, each returning what it
//     returns (`g.Go(func() error { return s.worker(ctx, jobs) })`), is
//     such a literal for its nil on the group context's Done;
//   - a cancellation the function causes itself: the tested error comes
//     from a call given a context the function derived (WithCancel and
//     kin) and cancels on some path other than a deferred call (`cancel()`
//     once a callback has found what it looked for), so context.Canceled
//     is, or may be, its own early stop; but not when the child replaced
//     the caller's context parameter (`ctx, cancel :=
//     context.WithCancel(ctx)`): then the caller's cancellation is dropped
//     with the function's own stop and nothing is left to tell them
//     apart, which is reported, for a branch that clears the error and for
//     a filter (`err != nil && !errors.Is(err, context.Canceled)`, on any
//     error: the test says one is expected) that falls through to a nil
//     error, wherever the cancel call runs before the test (a callback
//     counts from the statement that holds it); and a stop: a function
//     that calls a cancel function it holds (a context.CancelFunc or
//     CancelCauseFunc field or variable, not deferred) on every path
//     before the test, of an error no call given one of its context
//     parameters produced (`w.cancel(); err := <-w.done`, `s.cancel();
//     err := s.group.Wait()`), filters its own stop;
//   - a branch that admits only a deadline's expiry (errors.Is(err,
//     context.DeadlineExceeded)) and answers with a stand-in made there (a
//     call or a literal: the offline image for a timed-out fetch): a
//     degraded answer the function chose; returning what was gathered
//     before the branch is still reported;
//   - a literal handed to a call given the same context it waits on
//     (`r.List(ctx, func(id ID) error { ... case <-ctx.Done(): return nil
//     ... })`): its nil goes back to List, which holds ctx and reports its
//     end, unless List leaves its context parameter blank;
//   - outside loops, in functions without an error result, explicit drops
//     (`_ = f(ctx)`) and branches that handle the error (an http handler
//     whose client left has nothing to return); calls of methods of
//     *http.Request (ParseForm reports malformed input, not cancellation);
//   - inside a loop over a collection (a range over a slice, array, map,
//     string or integer) in a function with no results, failures logged
//     and stepped over when nothing but logging follows the loop: nothing
//     records the work as done and nothing is returned, so no caller is
//     told it finished (a dispatcher that sends an event to each sink);
//   - a context held in a field or package variable (`case <-s.closed.Done()`
//     reports the object's own end, a different contract), and contexts
//     that cannot be canceled (context.Background(), WithoutCancel);
//   - errors that are used in the branch other than by logging: returned,
//     wrapped, stored, sent, passed to a function; and branches that test
//     the context themselves (ctx.Err(), errors.Is(err, context.Canceled))
//     or follow such a test of the same error;
//   - dropped errors of cleanup calls (Close, Shutdown, Stop, Rollback,
//     Release, Unlock, Abort, Cancel, Disconnect, Unsubscribe, Unregister,
//     Cleanup; extend with the cleanup-calls setting; unexported forms
//     such as shutdown count too), dropped or only logged, and anything
//     dropped or only logged inside a function or method with such a name
//     (Stop runs every stop hook whatever the others did), and a Canceled
//     error cleared in such a function that takes no context (Close
//     cancels what it closes); drops on a path that returns another error;
//   - loops that retry the same work (analysisutil.IsRetryLoop): retrycancel
//     reports those, and drops and logged errors in a collection loop
//     nested in a retry loop that never tests its context; loops that test
//     the context themselves, or whose end reaches such a test on every
//     path to a return (return ctx.Err() after the loop; an enclosing
//     loop whose select on ctx.Done() comes before any return): the
//     cancellation is reported, late by the rest of the collection;
//   - a logged error in a range over a channel, in a function or literal
//     with no error result: a stream forwarder has nothing to return, and
//     the stream ends when its sender closes it;
//   - outside loops, a drop or a logged error followed by more
//     context-bound work or a context test: the cancellation surfaces
//     there; a logged error that some path after the branch reads again
//     before anything overwrites it (`if err != nil { log(err) }; ...; if
//     err != nil { return err }`); and an explicit drop (`_ = cache.Delete(ctx, k)`) after
//     context-bound work whose error was checked: a best-effort side
//     effect of work that succeeded;
//   - an explicit drop (`_ = c.Close(ctx, x)`) in a loop of a function with
//     no error result, as outside loops; a drop followed, in its block or
//     the blocks around it, by the return of another error; a bare call in
//     a goroutine literal unless the goroutine then defers a release on
//     the same receiver (sem.Acquire(ctx, 1); defer sem.Release(1)):
//     nobody waits on its success;
//   - a dropped error left to another result that has an `Err() error`
//     method (`rows, _ := conn.Query(ctx, q)`, as pgx documents): whoever
//     iterates the rows reads it there, and a loop that does not is
//     reported as an iterator whose Err is never checked;
//   - a skipped error in a loop that is kept past the loop (declared before
//     it and read after it, or a named result): a failover that reports the
//     last failure;
//   - a branch taken on a cancellation that answers the HTTP client
//     (WriteHeader(499), http.Error) before returning nil: the request is
//     done, and the client that left has been answered;
//   - nil returned when the context ended in a worker whose body ends in a
//     `for {}` that nothing breaks out of, when every nil return is guarded
//     by a test of the context (or a wait helper given it that answers with
//     a bool): nil means stopped, and there is no other success (a worker
//     that returns ctx.Err() or context.Cause(ctx) on another path says its
//     stop is an error, so its nil for the same stop is reported);
//   - _test.go files, unless the tests setting is on.
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore swallowcancel shutdown path: the caller asked us to stop
package swallowcancel
