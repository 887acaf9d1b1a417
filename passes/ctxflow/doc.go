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
//     in a field of the receiver, and those of enclosing functions;
//   - whether a call is context-bound: it passes a context or an
//     *http.Request, or calls a function known (by a fact) to return
//     cancellation;
//   - whether an error expression may carry cancellation: ctx.Err(),
//     context.Cause, context.Canceled and context.DeadlineExceeded, the error
//     result of a context-bound call, and values derived from these by
//     assignment or wrapping (fmt.Errorf with %w, errors.Join).
//
// The CarriesCancel fact marks functions and methods whose error result may
// carry cancellation although they take no context (they hold one in their
// receiver, or wrap such a call), so that the knowledge crosses package
// boundaries.
package ctxflow
