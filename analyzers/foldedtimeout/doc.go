// Package foldedtimeout defines an Analyzer that reports cancellation
// errors that lose their identity on the way to the caller.
//
// # Analyzer foldedtimeout
//
// foldedtimeout: report cancellation that loses its identity (formatted, replaced, compared with ==, reported as a timeout)
//
// Callers decide what to do about a failure with errors.Is(err,
// context.Canceled) and errors.Is(err, context.DeadlineExceeded): stop
// quietly, retry, count a timeout, answer 499 instead of 500. That only works
// while the context's error stays in the chain. The check reports, for
// errors that may carry cancellation (ctxflow's MayCarryCancel; among
// them the error of a method of a value that a context-bound call returned
// with no error of its own, `db.QueryRowContext(ctx, q).Scan(&v)`, which
// defers the query's failure into the row):
//
//   - fmt.Errorf formatting one with %v, %s or %q (or its err.Error()) when
//     the result is returned, stored, sent or passed on (one finding per
//     function: the first, with the function's other such calls as related
//     places and one fix for all of them);
//   - errors.New(err.Error()), fmt.Errorf(err.Error()),
//     errors.New("op: " + err.Error()) and errors.New(fmt.Sprintf("op: %v", err));
//     and the same through local text: a string, a slice of strings or a
//     strings.Builder given err.Error() or a formatting of err (`msgs =
//     append(msgs, name+": "+err.Error())`, then `fmt.Errorf("%d failed:
//     %s", n, strings.Join(msgs, "; "))` with no %w, or `errors.New(msg)`);
//   - a new error or sentinel returned from `case <-ctx.Done():` or after
//     `ctx.Err() != nil`, in place of the context's error (a fmt.Errorf
//     whose %w operand is a local error that is nil on every path to the
//     return, such as the err of a loop whose failing rounds return, wraps
//     nothing and counts as new; fix: wrap context.Cause(ctx) there; one
//     that wraps only sentinels of its own, `fmt.Errorf("%w after %s",
//     ErrTimeout, d)`, keeps theirs and drops the context's; so does a
//     literal of a type whose Unwrap can only return fields the literal
//     leaves nil or a constant, `&RPCTimeoutError{Method: m}` whose Unwrap
//     falls back to context.DeadlineExceeded); and a new error
//     (errors.New, fmt.Errorf without %w, an error struct literal) or a
//     timeout sentinel handed on from there by a top-level statement of
//     the branch: an argument of a call statement (`es.abort(errors.New("context
//     done"))`), a send, or a store to a field or element (not log calls,
//     panics or local variables);
//   - a branch that predicts from ctx.Deadline() that the work cannot fit
//     (`if dl, ok := ctx.Deadline(); ok && time.Until(dl) < need`) and
//     returns a new error that does not wrap context.DeadlineExceeded: the
//     refusal is a timeout, and callers cannot tell it from a failure;
//   - a time limit made of a timer that cancels, `ctx, cancel :=
//     context.WithCancel(p)` and `time.AfterFunc(d, cancel)`: when it fires
//     the work ends with context.Canceled, so callers see a cancellation
//     where a limit ran out (fix: context.WithTimeout(p, d), when the timer
//     follows the WithCancel and is only stopped; a timer that is Reset, or
//     whose function does more than cancel, is left alone);
//   - a branch taken on the context's end that returns a local error
//     variable which, on some path, still holds a new error set before
//     (the last attempt's failure of a retry loop, `case <-ctx.Done():
//     return lastErr` after `lastErr = &statusError{code}`): the values it
//     can hold there are its reaching definitions (flow's DefsReaching),
//     and one new error among them is enough; fix: wrap the cause too;
//   - a cancellation reported as a timeout: `case <-ctx.Done(): return
//     ErrTimeout`, or `errors.Is(err, context.Canceled) || errors.Is(err,
//     context.DeadlineExceeded)` mapped to a sentinel whose name or message
//     says timeout or deadline, and a branch taken only for a
//     cancellation (errors.Is(err, context.Canceled) in an if or a case of
//     a tagless switch, without its deadline) that assigns a constant or
//     package variable whose name says timeout or deadline (`kind =
//     FailureTimeout`): work the caller canceled is counted as a timeout;
//   - a CancelCauseFunc called with a cause that cannot match
//     context.Canceled (errors.New, fmt.Errorf without %w) in a package
//     that itself tests `errors.Is(context.Cause(ctx), context.Canceled)`:
//     that test is false for this cancellation, so a deliberate stop is
//     reported as a failure (wrap context.Canceled in the cause);
//   - an error type that stores one in a field but has no Unwrap, Is or As
//     method (also for types of other packages, from their type information), and a
//     literal of an error type that keeps only its text
//     (`&RemoteError{Message: err.Error()}`) and no error in any field (one
//     that also sets an integer code is a status error, read by its code,
//     unless its type's Unwrap returns an error field the literal leaves
//     unset: `StatusError{Status: err.Error(), StatusCode: 125}` drops the
//     Cause errors.Is would read),
//     or a list error type whose element literals do so
//     (`GraphQLErrors{{Message: err.Error()}}`), and a named slice of
//     errors that is an error itself but has no Unwrap, Is or As method (a
//     hand-made multierror) collecting one (`errs = append(errs, err)`,
//     errs returned as the function's error; fix: `Unwrap() []error`);
//   - errors.As(err, &context.Canceled): with a *error target As matches
//     every error and overwrites the sentinel (fix: errors.Is);
//   - the same in a deferred literal that annotates the function's named
//     error result (`err = fmt.Errorf("rpc %s: %s", m, err)`): it sees the
//     value of every return statement;
//   - err == context.Canceled, err != context.DeadlineExceeded and
//     `switch err { case context.Canceled: }` on errors that may be wrapped
//     (an error parameter counts when a call in the package passes it one,
//     or when no call in the package is known: comparing it with a context
//     sentinel says cancellations arrive there, and its callers decide
//     whether wrapped),
//     errors.Is(context.Canceled, err) with its arguments swapped, a
//     lookup m[err] in a map keyed by errors that the package keys by a
//     context sentinel (`ignored: map[error]bool{context.Canceled: true}`:
//     a lookup is an == comparison), and
//     matching the text: err.Error() == "context canceled",
//     strings.Contains(err.Error(), context.DeadlineExceeded.Error()).
//
// Bad:
//
//	select {
//	case <-ctx.Done():
//		return nil, ErrTimeout
//	case r := <-results:
//		return r, nil
//	}
//
// Good:
//
//	select {
//	case <-ctx.Done():
//		return nil, fmt.Errorf("%w: %w", ErrTimeout, context.Cause(ctx))
//	case r := <-results:
//		return r, nil
//	}
//
// Fixes: %v becomes %w (several %w need Go 1.20, read from the file's
// version); errors.New(err.Error()) becomes err; a new error or sentinel
// wraps context.Cause(ctx) with %w; == becomes errors.Is, and a simple
// switch becomes a tagless switch of errors.Is cases; a local error type
// gets an Unwrap method. When the package already uses the reference
// runtime, stop.Wrap(ctx, err) is offered as a second fix.
//
// Not reported:
//
//   - %v inside log calls, panics, or a fmt.Errorf whose result is only
//     logged or discarded, or handed to a call whose result is only
//     panicked or logged (`panic(vm.NewGoError(fmt.Errorf("...: %v",
//     err)))`, a script engine's exception): nothing is returned;
//   - errors that cannot carry cancellation: not from a context-bound call,
//     or from a call given context.Background() or WithoutCancel, or of a
//     callee whose errors are all made fresh (ctxflow's FreshErrors fact:
//     errors.New, fmt.Errorf without %w, or a local variable holding only
//     such errors or nil where it is returned; for an interface method, every
//     implementation of it in the package that declares the interface) or
//     that never fails (the NilErrors fact: every return gives nil); errors
//     that errors.Is cannot match with a context's error whatever the verb
//     (ctxflow's IdentityFree fact and HoldsContextError: every value the
//     error may hold is a fresh error, a value of an error type without
//     Unwrap, As, or an Is that matches other types, `&ZFSError{Err:
//     err}` (the literal itself is reported, above), the error of a gRPC
//     client call, which is a status error, or of aws-sdk-go v1's
//     request.Send, whose awserr has no Unwrap), also where a type
//     assertion has narrowed the error to such a type (`if apiErr, ok :=
//     err.(*api.Error); ok { ... err.Error() ... }`, the `case *api.Error:`
//     of a type switch on err); errors
//     formatted after the function already tested for cancellation and
//     returned (if ctx.Err() != nil { return ctx.Err() }, or `if err :=
//     ctx.Err(); err != nil { return err }`: the variable is defined from
//     the context's Err);
//   - == against context.Canceled on a parameter of a helper that every
//     call in the package gives ctx.Err(), a sentinel or an error that
//     carries no cancellation (mapErr(ctx.Err()) receives the bare
//     sentinel);
//   - ctx.Err() == context.Canceled, which is never wrapped, and
//     context.Cause(ctx) == ... in a package that gives no cancellation a
//     cause of its own (no CancelCauseFunc called with a value, no
//     WithTimeoutCause or WithDeadlineCause): there the cause is ctx.Err();
//     where the package does give causes, Cause returns them as given and
//     `context.Cause(ctx) == context.Canceled` misses one that wraps it
//     (reported); comparisons inside Is methods and the context package;
//   - contexts held in fields or package variables (their end is the
//     object's close, and ErrClosed is the right answer), and local contexts
//     that can only time out (WithTimeout of Background): mapping those to
//     ErrTimeout is correct;
//   - a test for DeadlineExceeded alone mapped to a timeout, and a test for
//     Canceled alone mapped to a new non-timeout error (a deliberate name);
//   - a skip sentinel a tree walk's callback returns (filepath.SkipAll): the
//     walk turns it into nil, which swallowcancel reports;
//   - returns of local variables and other calls (status.Error(...)), which
//     may be deliberate translations;
//   - _test.go files, unless the tests setting is on.
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore foldedtimeout the public API promises ErrTimeout only
package foldedtimeout
