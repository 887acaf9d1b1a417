// Package detachedctx defines an Analyzer that reports fresh root contexts
// created where the caller's context is in reach.
//
// # Analyzer detachedctx
//
// detachedctx: report context.Background() or context.TODO() where a caller's context is in reach
//
// A function that has a context in reach (a context.Context parameter, the
// Context() of an *http.Request parameter, a context field of its receiver,
// or one of these from an enclosing function) and still builds its work on
// context.Background() or context.TODO() cuts the caller's deadline and
// cancellation off: when the client disconnects or the deadline passes, the
// work started under the fresh context keeps running, holding connections,
// locks and goroutines. Values carried by the context (trace spans, request
// IDs, credentials) are lost too. A call of a function that takes no
// context and returns a root on every path (`return
// context.WithValue(context.Background(), k, v)`: ctxflow's ReturnsRoot
// fact, across packages) is the same cut, reported at the call without a
// fix (rewriting it would lose what the helper adds).
//
// A context parameter that the function never uses still counts: ignoring
// it in favour of a fresh root is the bug (name it _ to say the function has
// no use for it).
//
// A finding is made when the fresh context (directly, or a context derived
// from it with context.WithTimeout, WithCancel, WithDeadline, WithValue and
// their Cause variants) reaches a call or a local variable that is used.
//
// It also reports calls of APIs that take no context while a caller's
// context (a context parameter, or a request's) is in reach, when the API
// has a context-aware form: a method or function of the same receiver or
// package whose name adds Context, WithContext or Ctx and that takes a
// context and then the same parameters, and returns the same results
// (db.Query and QueryContext,
// exec.Command and CommandContext, http.NewRequest and
// NewRequestWithContext, a user type's Load and LoadContext), or one the
// knowledge table names (http.Get, Post and Head, net.Dial and DialTimeout,
// net.Lookup*, db.Begin). Such a call runs under no deadline and no
// cancellation. A request made by http.NewRequest that is never handed to
// a call (only its own methods and fields are used: req.Write(conn) onto a
// connection the function dialed; http.ReadResponse reads its fields) is
// read by no client, so its context would govern nothing, and is quiet. A context form that drops its context's cancellation
// (ctxflow's DropsCancel fact: its context parameters are named _, unused,
// or used only through context.WithoutCancel or handed to such functions,
// as go-oidc's VerifierContext keeps `context.WithoutCancel(ctx)` in the
// key set it builds) is no such form: the caller's context would bound
// nothing there. Not reported: calls with no result (a log call's context
// would carry values only: slog.Info), calls in a deferred statement,
// calls whose value is stored in a field or composite (c.cmd =
// exec.Command(...): a subprocess the object manages, meant to outlive the
// call; not for a dial, net.Dial, DialTimeout or the Dial of a net.Dialer
// or tls.Dialer, whose context bounds only the dial, so a kept connection
// was still dialed without the caller's context), and calls in
// main and init.
//
// It also reports, where a caller's context (a parameter, or a request's)
// is in reach, a call of a function of the module that takes no context
// and runs its work under a root context of its own (contextcheck's
// transitive rule, decided from a fact: ctxflow's MakesRoot): the function
// passes context.Background() or TODO() (or a context derived only from
// one, or a request made without a context) to a call that runs work under
// it (one that can fail, with an error that may carry the context's end,
// or that watches the context itself), or calls another function that
// does, in this package or another of the module. The message names the chain (`sync takes no
// context and calls load, which runs its work under context.TODO()
// (store.go:12)`). A constructor that only stores the root
// (NewRequestWithContext(context.Background(), ...)) and logging calls are
// not work; functions of other modules and roots made outside the module
// (their context form is the previous rule's), goroutines started on such a function, deferred calls
// and main and init are not reported, nor is a root bounded by a deadline
// of the callee's own (context.WithTimeout(context.Background(), d): a
// lifetime it chose) or one whose cancel function the callee keeps in the
// value it builds or returns (`ctx, cancel :=
// context.WithCancel(context.Background())` beside `&Store{shutdown:
// cancel}`: the object owns that lifetime and its Shutdown ends it). One root is one finding per package: the first call
// that reaches it, with the other calls reaching the same root (up to ten)
// as related positions. There is no fix: the helper needs a context
// parameter.
//
// And it reports a method that is given its caller's context and runs
// work under a context its receiver stored instead (`func (s *Store)
// Get(ctx context.Context) { s.db.QueryContext(s.ctx, q) }`): the work runs
// until the receiver's context ends. Goroutines and callbacks the method
// starts, methods that watch the stored context's end themselves (a worker
// for the receiver's life), shutdown methods, deferred and logging calls
// are not reported. A method is reported once per field, at its first use
// (the others are related positions), and the message says when every
// value the package stores in the field cannot end. The fix passes the
// caller's context at every use.
//
// Bad:
//
//	func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
//		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
//		defer cancel()
//		rows, err := h.db.QueryContext(ctx, query)
//		...
//	}
//
// Good:
//
//	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
//
// Work that must outlive the caller on purpose (a rollback, an audit record
// or a log written from a defer) should say so with context.WithoutCancel
// (Go 1.21), which drops the cancellation but keeps the values:
//
//	defer func() {
//		if err != nil {
//			tx.Rollback(context.WithoutCancel(ctx))
//		}
//	}()
//
// Fixes: call the context form with the context in reach first, where
// the rename is mechanical (QueryContext, CommandContext,
// NewRequestWithContext, BeginTx(ctx, nil)); replace the fresh context with the context in reach (ctx,
// r.Context(), s.ctx). In cleanup positions (see below) the fix is
// context.WithoutCancel(ctx) instead; it is offered only when the file's Go
// version is 1.21 or later, and in older files cleanup positions are not
// reported at all, since there is no better spelling. Elsewhere (not for
// logging calls) context.WithoutCancel(ctx) is the second fix, for work
// that outlives its caller on purpose, such as a shared cache filled under
// its own timeout: `-fix` applies the first, an editor offers both. It is
// the first fix where the code keeps running whatever the caller's context
// does, so that passing that context would change what it does: inside a
// goroutine that nothing joins (it outlives its caller by design, and
// would be cut off when the caller's context ends), and inside a retry
// loop that never tests a context (it would spin on a canceled one).
//
// A fresh context passed to a logging call (log/slog's ...Context
// functions and methods, and other calls analysisutil.IsLogCall knows) is
// reported for the values it drops: the record loses its trace and request
// IDs. The fix is the context in reach.
//
// A cleanup position is a deferred call, a call inside a deferred function
// literal, or a call whose name has one of the words cleanup, clean,
// rollback, abort, audit, release, unlock, teardown, close, shutdown, stop
// or exit (split at camel-case boundaries: AuditLog has audit, Audition
// does not; exitProcess called from an admin handler stops the server that
// serves the request, and must outlive its context).
//
// Not reported:
//   - functions with no context in reach (a context parameter named _ does
//     not count), main, init, and everything in _test.go files: tests build
//     their own roots for setup and their deadlines;
//   - context.WithoutCancel itself, and a fresh context passed to it;
//   - a fresh context given to a setter that only stores it in a field
//     (ctxflow's StoresContext fact: `vm.SetContext(context.Background())`
//     resetting a pooled object), like one stored by the caller itself;
//   - a log call given context.Background() where the context in reach
//     carries no values: every call of the function passes one made from
//     Background with cancels and deadlines only (ctxflow's ValueLess);
//   - pprof.SetGoroutineLabels(context.Background()), which clears the
//     goroutine's profiler labels;
//   - a fresh context stored for a long-lived owner: assigned to a field or a
//     package-level variable, put in a composite literal, or returned; also
//     a call whose result is stored that way (`s.pool =
//     NewPool(context.Background())`, `c := NewClient(...); s.c = c` for
//     New... constructors);
//   - a fresh context handed to a goroutine: `go run(context.Background())`,
//     or created inside a `go func() {...}()` literal that never uses the
//     spawner's context (a background worker detached on purpose; untrackedgo
//     owns goroutine lifetimes). A goroutine that uses the spawner's context
//     and also makes a fresh one is reported, and so is one its spawner waits
//     for on every path (a local WaitGroup, a done channel): its work is the
//     spawner's. So is a fresh root in a `go func() {...}()` literal of a
//     method (not a shutdown method) whose receiver keeps a context field
//     (`h.appCtx`, or a context it creates and cancels itself): the
//     goroutine is meant to outlive the call, and its natural parent is
//     that lifetime context, so that shutting the receiver down ends it;
//     the fix uses the field (log records and cleanups stay quiet).
//     Literals run later or once for
//     many callers (time.AfterFunc, called directly or through a package
//     variable that holds it, such as a seam for tests, callbacks stored
//     in a field or a
//     composite literal or returned to the caller, such as a shutdown
//     function, sync.Once.Do, sync.OnceFunc/OnceValue/
//     OnceValues, singleflight's Do and DoChan) are treated the same way:
//     one caller's cancellation must not fail the others. Literals passed to
//     context.AfterFunc run after the context ended and are never reported;
//   - a fresh root given to a call together with a live context of the
//     caller's (`addValues(context.Background(), ctx)`): the call builds a
//     context on a new root from what ctx holds, a hand-made
//     context.WithoutCancel, so the detachment is its purpose (also when
//     the root is held in a variable first: `nctx := context.Background();
//     nctx = fs.CopyConfig(nctx, ctx)`);
//   - a context field of a receiver whose struct also holds a cancel
//     function (context.CancelFunc, CancelCauseFunc, or a func field named
//     like cancel): the receiver owns that context, it is its own lifetime
//     and not a caller's; unless the function itself waits for or tests
//     that context's end (a loop that returns on `<-k.ctx.Done()`): then
//     it is the function's governing context, and a fresh root in its
//     work (a renewal sent with context.Background()) is not interrupted
//     when the loop's context ends;
//   - in a method named for shutting down (Close, Stop, Shutdown, Drain,
//     Terminate, Teardown, Cleanup, Destroy), a context field of the
//     receiver does not count as in reach: it is the one being torn down;
//   - a fresh context made after the context in reach has ended: below a
//     `<-ctx.Done()` statement, in a `case <-ctx.Done():` clause, after a
//     select with such a case, or inside `if ctx.Err() != nil {...}`
//     (graceful shutdown needs a context that is still alive);
//   - a fallback for a missing context: inside `if ctx == nil {...}`;
//   - the context-less form of an API when only a receiver's context field
//     is in reach: `func (tx *Tx) Exec(q string) { return
//     tx.ExecContext(context.Background(), q) }` (also ...WithContext and
//     ...Ctx), detached by contract;
//   - a line (or the line below a comment) carrying a comment of the form
//     `// detached: <reason>` with a non-empty reason;
//   - a root whose line, or the comment block right above it or above its
//     statement, says in plain words why it must not end with the caller
//     (the knowledge table's DetachReasons: "deliberately", "on purpose",
//     "must outlive the request", "do not propagate ... to avoid early
//     cancellation", "even if the client leaves"): the author detached it
//     knowingly; a comment that only says what the code does keeps the
//     finding;
//   - a context parameter that every caller gives context.Background(),
//     TODO() or another detached context (an unexported function, never
//     used as a value; values added to a detached context by
//     context.WithValue or a function with ctxflow's AddsValues fact,
//     `withConn(context.Background(), c)`, are detached too): the context
//     in reach never ends (ctxflow's
//     DetachedParam; errors under it carry no cancellation either); so
//     for an *http.Request parameter that every caller gives a request
//     made without a context (http.ReadRequest off a raw connection,
//     http.NewRequest).
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore detachedctx the job must finish even if the client leaves
package detachedctx
