// Package ctxflow computes, once per package, the cancellation flow that
// cancelcheck's checks read: which functions have a context in reach, which
// calls are bound to a context, and which error values may carry a context's
// cancellation.
//
// # Analyzer ctxflow
//
// ctxflow: compute which errors may carry context cancellation
//
// ctxflow reports nothing. Its result, a *Result, answers for the checks:
//
//   - the functions of the package (declarations and literals), their
//     signatures, and the contexts in reach of each: context.Context
//     parameters, r.Context() of an *http.Request parameter, a context held
//     in a field of the receiver (unless the package sets that field to
//     nil or tests it against nil: a value built without a context leaves
//     it nil), and those of enclosing functions;
//   - whether a call is context-bound: it passes a context or an
//     *http.Request, or calls a function known (by a fact) to return
//     cancellation, or is g.Wait() on a local group made by
//     errgroup.WithContext(ctx) or the runtime's scope.New(ctx) (with a
//     context that is not detached), or calls a literal where it is written
//     (`err := func() error { ... }()`) one of whose returns may carry
//     cancellation;
//   - whether an error expression may carry cancellation: ctx.Err(),
//     context.Cause, context.Canceled and context.DeadlineExceeded, the error
//     result of a context-bound call, and values derived from these by
//     assignment or wrapping (fmt.Errorf with %w, errors.Join).
//
// A call does not carry cancellation when every context it is given is
// detached (context.Background(), TODO(), WithoutCancel, a test's
// t.Context(), which ends only after the test, a local variable only
// assigned those or those with values added to its own value (`ctx, span
// := tracer.Start(ctx, ...)`), or a parameter every caller gives one of
// those, of a function or of an unexported method that no interface of
// the package names (nothing else can call it); a
// request built by http.NewRequest or read by http.ReadRequest, or with
// a detached context, or a local only assigned such requests), when it is a method of an *exec.Cmd built
// by exec.Command, when its callee is a log handler (it takes a
// slog.Record), when its callee has the NoCancel fact, or when its callee
// is a concrete function or method whose context parameters are all blank
// (`_ context.Context`, or unnamed: it cannot look at them; an interface
// method's names say nothing of its implementations). A result of a
// generic function whose declared type is a type parameter (an error only
// by instantiation) is what the function arguments produce: it carries
// nothing when each of them is a literal doing no context-bound work.
//
// The NoCancel fact marks functions that take a context but use it only
// for its values: every use is ctx.Value or an argument to a call that
// returns no error (a lookup, a log call; an iterator or channel that
// yields errors counts as returning them, and so does a value with an
// `Err() error` method, such as go-redis's commands and *sql.Row, and a
// request the context is bound to, req.WithContext(ctx)) or to
// another NoCancel function, the context is used at least once (an unused
// context may be a stub's), and the function returns non-nil errors of
// its own. An interface method of the package has it when every
// implementation of it in the package has it and none hands the context
// to an interface method of the package (a middleware's next handler may
// be anyone's); and an interface method one of whose implementations in
// the package carries cancellation carries it too.
//
// The FreshErrors fact marks functions all of whose returned errors are
// made fresh (errors.New, fmt.Errorf without %w, a package sentinel other
// than the context's, a local variable nil on every path to its return, or
// the error of another such function; an interface method, when every
// implementation of it in the package that declares it is such), with at
// least one such error: none is, or wraps, a context's error, so a caller's
// error from them carries no cancellation (formatting it loses nothing,
// errors.Is finds nothing). A function that only returns nil is a stub and
// gets no fact.
//
// The AddsValues fact marks functions whose context result is, on every
// return, their one context parameter with values added (the parameter,
// context.WithValue of it, or another such function's result given it:
// `xlog.NewContext(ctx, l)`): given a context that cannot end, such a call
// returns one that cannot end either. APIs whose bodies are out of reach
// (interface methods such as OpenTelemetry's Tracer.Start, gRPC's metadata
// helpers) are known from internal/knowledge's valueContexts table.
//
// The NilErrors fact marks the opposite end: concrete functions whose
// every return gives a nil error (a nil literal, a variable nil on every
// path to the return, or the error of another such function) and that do
// more than return, given a context or not (one that logs its failures and
// returns nil): a caller's `if err != nil` after one cannot be taken, and
// its error carries no cancellation. Result.NeverFails answers it for a
// call, and also for the standard library's pure parsers given a constant
// they parse (url.Parse of a literal URL, regexp.Compile,
// time.ParseDuration), run at analysis time; leaseleak prunes those
// branches.
//
// The CarriesCancel fact marks functions and methods whose error result may
// carry cancellation although they take no context (they hold one in their
// receiver, or wrap such a call), so that the knowledge crosses package
// boundaries. A call of such a method whose only way to a context is its
// receiver is not context-bound when the receiver holds no caller's
// context: it was made by a call given no context but detached ones and
// nothing else that could bring one (db.Begin(), exec.Command,
// db.BeginTx(context.Background(), nil)), is a local variable only ever
// assigned such values, or is the parameter of a function literal passed
// to a call that is given only detached contexts (`db.Write(context.TODO(),
// func(tx *bstore.Tx) error { ... })`: the call makes tx under them). So
// is a call that takes no context and whose only way to one is arguments
// that hold none (nextModSeq(tx) for such a tx).
//
// The ReturnsCtxErr fact marks functions whose error result is, on every
// return, nil or the Err (or Cause) of one context parameter, with both
// outcomes present (a wait helper: sleepCtx(ctx, d)): the error of a call
// to one is that context's end, and testing it against nil tests the
// context (CtxErrOf, CancelTestOf). A function that only returns ctx.Err()
// is a stub and gets no fact.
//
// The ChecksContext fact marks functions returning a bool that observe the
// cancellation of a context parameter (Err, Done, context.Cause, or another
// such function): a loop that acts on done(ctx) checks its context
// (Result.ChecksContext also answers for this package's functions that
// return something else). The Sleeps fact marks short context-less helpers
// that end in time.Sleep (a backoff that cannot be interrupted). Both were
// retrycancel's; they live here so that a package vetted only for its
// facts runs no reporting check.
//
// The ClassifiesCancel fact marks predicates of an error (a function with
// an error parameter and a bool result that reads the error:
// shouldRetry(status, err), isTransient(err)) with their verdict when the
// error is context.Canceled and when it is DeadlineExceeded, each true,
// false or unknown, read off the body's paths under that error: `err !=
// nil` holds, errors.Is holds only for that sentinel, errors.As only for an
// interface target the sentinel implements (DeadlineExceeded is a
// net.Error), and other conditions go either way. retrycancel asks it of
// the classifiers its loops exit on (Result.ClassifierOf).
package ctxflow
