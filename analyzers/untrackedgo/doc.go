// Package untrackedgo defines an Analyzer that reports goroutines nothing
// joins, whose work outlives the function that owns its state.
//
// # Analyzer untrackedgo
//
// untrackedgo: report goroutines that outlive the function whose state they use
//
// A goroutine is tracked when its owner (the function whose body starts
// it) waits for it before returning: a sync.WaitGroup it calls Done on and
// the owner Waits for, an errgroup.Group or scope.Scope (their Go methods
// are not `go` statements), a done or result channel the owner receives from
// on every path, or a helper known through facts to do one of these
// ("joins via parameter N"). A WaitGroup, channel or group of another
// owner (a parameter, a field, or a *sync.WaitGroup the owner got from a
// call: `wg := groupOf(config)`) is that owner's to wait on. It is bound
// when it is a worker loop or a
// watcher that ends with a context or stop channel (`for {}` loops, ranges
// over channels, `<-ctx.Done()`, a stop channel of the owner); a range over
// a job channel the owner made for this call and only sends on and closes
// binds nothing, since the range ends when the owner closes the channel but
// the work of the last jobs goes on after the owner returned, so such
// workers need a join; and
// a future when its only owner state is the context and its last act is
// sending its value (not an error alone) on every path into a buffer of
// the owner with room for it (one slot per sender): an owner that stops
// waiting abandons the value on purpose, and the goroutine ends with its
// work. It is
// long-lived when its owner is a constructor of a type with a Close, Stop,
// Shutdown or Wait method, or it runs a method of another such object
// (`go srv.Serve(l)`). A method of a closable type gets no pass by itself:
// its goroutine is tracked when it reports to a WaitGroup field that Close
// waits for, or watches the owner's stop channel.
//
// untrackedgo reports a `go` statement when all of these hold:
//
//   - the goroutine uses state of its owner that does not survive the
//     owner's return: the ResponseWriter or Request of an http handler
//     (a func(w http.ResponseWriter, r *http.Request) or ServeHTTP); a local
//     variable of the owner it writes and the owner reads after the start
//     (the result is lost and races; a variable only other goroutines of
//     the owner read is state they share); the
//     owner's context or one derived from it (canceled by the caller once
//     the owner returns), unless the goroutine only watches it; or it is
//     started for each element of a finite collection loop (one the loop
//     can go round again after: a start followed on every path by a return
//     or a break out of the loop is one goroutine, not one per element);
//   - the owner can return, on some path from the `go` statement, without a
//     join event (control flow from ctrlflow; a loop with the same rounds
//     as the loop that started the goroutines, `range xs` or `i < n`, runs
//     at least once; a local flag set to true before the `go` statement and
//     never cleared, `started = true`, stays true, so `if !started {
//     return }` is not such a path: passes/flow's SetFlags);
//   - for context uses and loops: the goroutine is not bound, the owner is
//     not long-lived, and the owner is not main, init or a function main
//     runs as its last act (ctxflow's MainLike); for context uses,
//     the goroutine is not started by an accept or dispatch loop (`for {}`,
//     a range over a channel), whose goroutines serve the owner's lifetime
//     context; unless the owner is a function literal run by a group
//     (errgroup's Go, sync.WaitGroup.Go) that a function around it waits
//     for: such a literal does its caller's work under its caller's
//     contexts, and a goroutine it starts outside the group escapes the
//     Wait (`g.Go(func() error { for { ...; go s.dispatch(ctx, n) } })`;
//     fix: start it with g.Go). A request passed to a function that is not
//     a handler is data handed over, not a context.
//
// It also reports sync.WaitGroup.Add called inside the goroutine it
// counts (one that calls Done on the same group), or as the first
// statement of a new goroutine (vet's waitgroup rule), or through a helper
// of the package that calls Add on a WaitGroup field and starts nothing
// itself (`p.running.enter()` beside `defer p.running.leave()`): Wait may
// run before the Add and return early; and a goroutine
// that calls Done on a WaitGroup of its owner on some paths but can end on
// another without it (an early return on an error, a cancellation arm of a
// select): the counter never reaches zero and Wait blocks forever. Paths
// that panic or call a function that never returns are no ends; a deferred
// Done, or a deferred closure that calls it, covers every path; a Done in a
// callback the goroutine hands on runs when the graph cannot tell, and is
// not judged, nor is a Done inside a loop of the goroutine that does not
// end it (a Done per job counts jobs). A `go f(ctx, &wg)` of a function of
// the package is judged by that function's body.
//
// Goroutines started on a group, (*errgroup.Group).Go and TryGo,
// (*sync.WaitGroup).Go and the runtime's (*scope.Scope).Go, are joined by
// the group's Wait: when the owner declares the group and a path from the
// Go call reaches a return without a Wait (or handing the group on: any
// use other than Go, TryGo and SetLimit), and no Wait is deferred, the
// goroutines outlive the call and an errgroup's error is lost. A group the
// owner stores where it outlives the call (a field of a value it builds or
// returns, `b := &Batcher{g: g}`, `s.g = g`, a result) is its holder's to
// wait on, whenever the store happens.
//
// And it reports a shutdown method (Close, Stop, Shutdown, GracefulStop)
// that tells the type's goroutines to stop (it calls a field holding a
// context's cancel function, or closes a channel field) and can return,
// on some path from that signal, without waiting on the handle the type
// keeps for them: a WaitGroup field that counts them, a field of a group
// type (errgroup.Group, however its goroutines were started on it), or a
// channel field that a goroutine closes when it ends and the package
// receives from; while another method of the type signals them and waits
// on that handle, the type's own complete shutdown. The goroutines may
// still be running after the shutdown has returned, against whatever its
// caller releases next (a file closed, a connection torn down). A type
// whose waiting method does not signal (Stop, then Wait) splits the two on
// purpose, and so does one whose waiting method calls the shutdown
// (StopAndWait calls Stop): neither is reported. A wait through a method
// of the package that waits counts. A type one of whose methods or
// constructors starts a goroutine that never mentions the handle tracks
// its goroutines inconsistently: that goroutine is the finding (the rule
// above), not the shutdown.
//
// Bad:
//
//	func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
//		go h.audit(r.Context(), r.URL.Path) // canceled as soon as ServeHTTP returns
//		w.WriteHeader(http.StatusAccepted)
//	}
//
// Good:
//
//	func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
//		go h.audit(context.WithoutCancel(r.Context()), r.URL.Path)
//		...
//	}
//
// or join the goroutine before returning (sync.WaitGroup, errgroup,
// scope.New / Scope.Go / Scope.Wait).
//
// It also reports a goroutine started by a method of a type that counts
// its other goroutines in a WaitGroup field and waits on it (an Add or Go
// and a Wait on the field somewhere in the package, and a Done in a
// function that does not add to it: a field whose Done sits beside its
// Add counts listeners or running calls, not goroutines), when nothing counts
// this one: neither its body nor a function of the package it calls
// mentions the field, and it does not watch a stop channel or context
// (unless the method that starts it counts its other goroutines in the
// field itself: `c.loops.Add(2)` before three go statements; or it runs
// work that goroutines counted in the field run elsewhere, `go p.worker()`
// beside `p.wg.Add(1); go func() { defer p.wg.Done(); p.worker() }()`:
// the shutdown signals it and its Wait can return while it is still in
// that work), and its
// reports on fields (`c.status <- s`) are not received by the shutdown
// that waits; or it runs a function value held in a local or parameter
// (`go h(req)`, a handler looked up) whose arguments hand it neither the
// receiver nor a WaitGroup. The shutdown's Wait returns while it still
// runs.
//
// And it reports a release (Close, Stop, Shutdown, Release on a field)
// of something a goroutine uses, called right after the cancel function of
// the context the goroutine was given, on a path with no wait between (no
// receive, select, Wait or sleep), in the function that started it or a
// function literal of it (a returned stop function): canceling only asks
// the goroutine to stop, so it can still be inside a call on that field
// when the field is released (a write to a closed store). The fields a
// goroutine uses are those its body selects, and those of the receiver's
// methods it calls, one level down. A deferred cancel runs after any
// release and is not such a call; a goroutine reported by another rule is
// not reported again, and one release is one finding.
//
// And it reports a goroutine that never ends, started by a method or a
// constructor (a function returning the type) of a type with a Close,
// Stop, Shutdown or GracefulStop method: no path through its
// body (the literal, or the method of the package it runs) reaches an end,
// counting a range over a ticker's or timer's channel (t.C, time.Tick) as
// endless, since Stop does not close C. The shutdown cannot reach it, so
// it keeps running against an object that was shut down. A goroutine with
// a way out (a return on a stop channel, a closed input, the context) is
// judged by the rules above. The same holds for a function or method
// without a shutdown method that takes a context (not one named _, not in
// main or a function main runs as its last act): canceling the context is
// the caller's way to end what it started, and the goroutine cannot hear
// it. A starter with neither makes no promise the goroutine breaks.
//
// And it reports a goroutine literal that ranges over a channel its owner
// made (`ch := make(chan T)`) and uses only to send on, close, len or cap,
// when some path from the owner's entry through the go statement to a
// return never closes it (a deferred close covers every path; a close
// before the go statement, of a prefilled job channel, counts): nothing
// else can close the channel, so on that path the goroutine blocks in the
// range forever. A channel handed to a call, stored, returned or captured
// by another literal is not judged.
//
// Fixes: when the owner is a function with a context parameter and the
// goroutine is a `go func() { ... }()` literal, run it in a scope of the
// runtime (github.com/cancelcheck/cancelcheck/rt/scope) that the owner
// waits for where it returns (`defer sc.Wait()`), only when the package's
// build already resolves the runtime module (it imports one of its
// packages, directly or through a dependency: otherwise the import would
// not compile); WaitGroup.Add inside the
// goroutine is moved before the `go` statement; a Done that is the
// goroutine's last statement and is skipped on some path becomes a `defer`
// at the top of its body. No fix when the owner is
// not clear (a literal owner, a `go f(x)` call).
//
// A goroutine literal that closes a channel its owner made for the purpose
// (`flushed := make(chan struct{})`; `go func() { defer close(flushed);
// ... }()`), mentioning it only to close it, is reported when the owner
// never looks at that channel again (no receive, select, store or
// hand-off): the owner returns without the wait the channel was made for.
//
// Not reported: goroutines with join evidence on every path (a deferred
// Wait counts; a receive from a result or done channel counts on the paths
// that pass it, abandoned sends being orphansend's, and a loop over the
// collection whose loop started the goroutines runs at least once);
// goroutines
// whose send orphansend reports (one bug, one finding); servers and
// watchers (`go srv.Serve(l)` of a type with Shutdown, `go func() {
// <-ctx.Done(); cleanup() }()`, signal handlers, background loops);
// fire-and-forget goroutines that touch no owner state outside loops;
// goroutines in main and init and the functions main runs as its last act
// (`if err := run(); err != nil { log.Fatal(err) }`); goroutines on a context the owner detached
// on every path to the start (`ctx = context.WithoutCancel(ctx)`, a
// context derived from Background, or WithoutCancel in the go statement); writes to owner variables in tests, which
// synchronise in ways the analysis cannot see (synctest, gates);
// goroutines using a context whose cancel function the owner stores in a
// map element or a field of something it does not declare itself
// (`jobs[id] = cancel`, `s.stop = cancel`): a job registry owns and stops
// them; goroutines that report on a channel, WaitGroup or done channel held
// in a field (`s.results <- err`), whether the goroutine is a literal or a
// method or function of the package that does so itself or through a
// helper: the field's owner collects them. A `go load()` of a local bound
// once to a function literal is judged by the literal's body.
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore untrackedgo best-effort metrics flush, loss is fine
package untrackedgo
