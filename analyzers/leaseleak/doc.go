// Package leaseleak defines an Analyzer that reports leases (cancel
// functions, timers, locks, rows, transactions, response bodies, files,
// connections, spans, runtime leases) that are not given back on some path
// out of a function.
//
// # Analyzer leaseleak
//
// leaseleak: report leases that are not released on every path, above all on early returns
//
// A lease is anything acquired that must be given back: the cancel function
// of context.WithCancel, WithTimeout, WithDeadline and their Cause variants;
// time.NewTimer and time.NewTicker (before Go 1.23 only: since then an
// unreferenced timer is collected; a file of unknown version, built in
// GOPATH mode, gets the old behaviour); a semaphore.Weighted weight; a
// sync.Mutex or RWMutex lock; a pair of methods of a user type on one
// receiver (Acquire or TryAcquire and Release, Lock and Unlock, RLock and
// RUnlock, Retain and Release, IncRef and DecRef, Ref and Unref, Pin and
// Unpin: the table in internal/knowledge), where the acquire returns
// nothing, an error (held when it is nil) or a bool (held when true), in
// functions that call the release on that receiver themselves (a release
// method value handed on, `release: r.sem.Release`, gives it back); *sql.Rows, *sql.Stmt, *sql.Conn and *sql.Tx
// (Commit or Rollback; rows and statements of a transaction are closed by
// its Commit or Rollback and are not leases of their own); the Body of an *http.Response (from http.Get,
// Client.Do, RoundTrip, ...; not of a HEAD request's response, which has
// no body and whose connection the transport takes back at once: http.Head,
// a request made with the constant method "HEAD"); net.Conn, net.Listener, tls connections and
// *os.File; the stop function of signal.NotifyContext; an httptest.Server;
// an OpenTelemetry or OpenCensus span (End); sqlx's rows, statements,
// named statements, transactions and connections; pgx's Rows (of a
// connection, a transaction or a pool: a pgx transaction does not close
// them), transactions (Commit or Rollback) and pooled connections
// (Release); an rt/lease Lease; and the types named in the configuration.
// A deferred literal that releases the lease only under `if err != nil`,
// err being a named error result, releases it on the returns that fail: a
// return reached before the defer is registered, or one that returns nil,
// is a leak (defer func() { if err != nil { tx.Rollback() } }() beside a
// Commit is fine; an early `return nil` before the Commit is not).
//
// A function that returns a lease it acquired passes the duty to its
// callers; one that only returns a lease it is given, inside its result
// (http.MaxBytesReader(w, resp.Body, n)), passes it to the result, so a
// caller that drops the result has released nothing. A call statement that drops its results (http.Get(url),
// db.Query(q)) drops the lease with them; passing a lease to fmt, log, slog
// or testing's printers only formats it; body := resp.Body then
// body.Close() releases the response.
//
// Two more shapes of the same leak: a lease acquired in a loop and
// released only by a defer in the loop's body (not in a literal called per
// round), when a round can come back to the acquisition still holding it
// (rows iterated until Next returns false are closed by then): the deferred call
// runs when the function returns, so every round keeps its file, body or
// connection until then (cancel functions and timers only in loops that
// are neither counted nor ranges over a collection, where they pile up
// without bound, and not in a select case on a timer that fires once). And a counting semaphore made of a channel
// of empty structs that outlives the call (a field, a parameter, a package
// variable): a send takes a slot, a receive whose value is dropped gives
// it back (directly, deferred, or in a goroutine the function starts), and
// a return reached from the send without giving it back loses the slot
// for good. A send that is a select's case takes a slot only on its own
// case, and a `case <-sem:` waits for a signal rather than giving one
// back. A function with an error result that sends on such a field and
// never receives from it, or receives only right before returning a
// failure (`<-s.sem; return errRestarting`: it yields the slot), while
// another function of the package receives (a LockContext whose Unlock
// receives), is an acquirer: its success hands the slot to the caller, and
// a return of a non-nil error while holding it loses the slot, since the
// caller, told it failed, never gives it back (a field that a loop fills
// with plain sends is a pool of tokens, which works the other way round; a
// loop that sends in a select case beside ctx.Done takes slots). A loop
// ranging over a local slice that the function appends to, and receiving
// in its body, gives back as many slots as were counted into it
// (`taken = append(taken, struct{}{})` after each send; `for range taken {
// <-sem }`).
//
// A branch that cannot be taken is no path: `if err != nil` right after
// err is assigned the error of a call that never fails (ctxflow's
// NeverFails: a function of the NilErrors fact, or url.Parse,
// regexp.Compile and other pure parsers given a constant they parse).
//
// A function that releases a lease it is given (a release method called
// on a parameter: tx.Rollback(), f.Close()) is one its callers count as
// the release (`defer rollback(ctx, tx)`); a return of it under a test of
// a context's end or of an error that skips the release leaves the
// caller's lease held, and is reported there. A nil parameter holds
// nothing; a parameter the function also takes from (slots.Acquire ...
// slots.Release()) is a shared pool, not a lease it was given; returns
// under other conditions (a flag saying whether to close) are the
// function's contract.
//
// A value no table knows is a lease too when the function treats it as
// one: a local assigned from a call whose type has a Close, End, Finish or
// Release method without parameters that the function calls on it on some
// path. Releasing it there says every path must (a span ended on success
// only, a session closed on one branch). Not inferred when a value made by
// one of its methods is returned (tx, err := conn.Begin(ctx); return tx:
// the transaction may own the connection), when the variable is assigned
// elsewhere too, or for a stream (a value with Read or Write) unless the
// call hands it a connection or a file to take over (tls.Client(conn))
// that the function does not release or hand on itself (gzip.NewWriter(f)
// beside `defer f.Close()` is not one): an encoder's, a chunked writer's
// or a command pipe's Close finishes a stream something else owns; nor when
// the value is made by a method of a variable whose release the function
// defers before (defer client.Close(); sess, err := client.NewSession():
// the parent's release ends what it made), nor from a release-named method
// that returns more than an error (pkcs7's Finish returns the bytes it
// serialized).
//
// A lease that misses its release on one path leaks only when that path is
// taken: typically the early return of a cancellation or error check. The
// finding, at the acquisition, names the lease, the path (the first return
// that misses the release; every such return is a related place) and what
// the leak costs at run time, for instance: "the cancel function of
// context.WithTimeout is not called on the path through the return when
// ctx.Err() != nil, so the timer and the child context live until the
// deadline passes or the parent context ends". A lease acquired in a loop
// and not released before the loop acquires the next one is reported too,
// and so is a lease discarded with _ when the function can go on to
// succeed.
//
// Bad:
//
//	resp, err := client.Do(req)
//	if err != nil {
//		return err
//	}
//	if resp.StatusCode != http.StatusOK {
//		return fmt.Errorf("status %s", resp.Status) // body never closed
//	}
//	defer resp.Body.Close()
//
// Good:
//
//	resp, err := client.Do(req)
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//	if resp.StatusCode != http.StatusOK {
//		return fmt.Errorf("status %s", resp.Status)
//	}
//
// Ownership: a lease is not leaked when it is handed to a new owner on that
// path: returned; stored in a field of an owner that releases it (its type
// has a Close/Stop/Release-like method, or the package releases that field
// somewhere; a store into a field nothing releases is reported as that,
// naming the field, when every leaking path passes it), in a global, a map or slice element; sent on a channel;
// appended to a slice; captured by a goroutine; passed to a function that
// releases or keeps its parameter (the "releases its parameter N" fact,
// computed across packages by passes/ownership) or to code the check cannot
// see (a function value, an interface method), unless the function goes on
// to release the lease itself on a path where that call succeeded (the
// callee only borrowed it; a release only under the call's own `if err !=
// nil` is the cleanup of a hand-off that failed, and the success path leaves
// the lease with the callee); released in a deferred closure. A store is no hand-off when the same function takes the entry
// back (delete(m, k) on the same map and key, or x.f = nil on the same
// field): the registration lasts only for the function's run, so a return
// that skips the release leaves the entry and the lease behind. A field
// of a value the function made itself (`cl := &closer{}; ctx, cl.cancel =
// context.WithCancel(ctx)`) is no owner yet: the value holds the lease
// until it is handed on (returned, stored, passed), released through the
// field (cl.cancel()) or given to one of its own methods, which may
// release it; a return that drops the value drops the lease. So is a
// value the function builds around the lease, `w := &watcher{cancel:
// cancel}`: from that statement the variable holds the lease. A variable
// that takes one lease from either of two acquisitions (an if and its
// else) and loses it through the same returns is reported once. Paths on
// which the acquisition failed (its error is not nil, or
// the lease is nil, including predicates such as os.IsNotExist(err), or,
// for a comma-ok acquisition with no error result, `conn, ok :=
// u.Upgrade(w, r)`, ok is false, checked against the callee's returns when
// it is in the package: each false comes with a nil lease) need no release; nor do paths on which rows.Next() returned false, which closes
// the rows, or on which the response body was read to its end with
// io.ReadAll or io.Copy, which gives the connection back. A condition that
// held at the acquisition and reads only variables that never change is
// taken to hold again later (if b { mu.Lock() } ... if b { mu.Unlock() }),
// a local bool set to true right after a Lock records the hold
// (`mu.Lock(); held = true` ... `if held { mu.Unlock() }`),
// and after `ctx, cancel = context.WithTimeout(...)` a test of
// ctx.Deadline() finds a deadline (so `if _, ok := ctx.Deadline(); !ok {
// ctx, cancel = context.WithTimeout(ctx, d) }` does not overwrite it).
// A deferred closure registered before the acquisition that releases the
// same variable covers it.
//
// Locks and semaphore weights are held to every path only in functions that
// release the same lock themselves somewhere, outside callbacks and
// goroutines (a function that only locks hands the lock to its caller), and
// a semaphore Release pairs only with an Acquire of the same weight
// expression. A helper of the same package that unlocks, called on the
// lock's owner or returned as a method value, counts as a release, and so
// do a call of a closure of the function that unlocks the same lock
// (doErr := func(err error) { ...; s.mu.Unlock() }) and recording the hold
// in the owner (r.scanHold = true). A Lock in a
// function that unlocks first (Unlock; wait; Lock) gives back a lock its
// caller holds, and a deferred Unlock registered earlier covers a re-Lock.
//
// In files older than Go 1.23 it also reports time.After in a select inside
// a loop, and time.Tick in a function that returns. A time.Timer whose C
// was received from (a bare receive, or the select case that took it) has
// fired and holds nothing: a path through that receive needs no Stop. A
// ticker keeps ticking after a receive and still needs its Stop.
//
// Fixes: when the function never hands the lease off and the acquisition is
// not in a loop, a deferred release (defer cancel(), defer f.Close(), defer
// resp.Body.Close(), defer tx.Rollback(), defer span.End(), ...) right after
// the acquisition, or after the error check that follows it; otherwise the
// release before each return that misses it (and at the end of the loop
// body, for a lease acquired in a loop), when the variable is in scope
// there and the return is never reached with a failed acquisition. A
// discarded cancel function is named and deferred. No fix is offered for a
// lease a value still uses after the function returns (stored in a field,
// an element or a package variable, sent, or given to a call whose result
// the function returns or stores): a release on the way out would close
// what that value works with.
//
// Configuration (JSON): {"leases": [{"acquire": "example.com/pool.Get",
// "release": "Put"}, {"acquire": "(*example.com/db.Pool).Lease", "release":
// "Release"}]} adds user leases: the first non-error result of the
// acquirer must be released with the named method. {"tests": true} also
// checks _test.go files.
//
// It also reports a write Unlock of a sync.Mutex or RWMutex that follows
// another Unlock of the same mutex on some path with no Lock in between, or
// that runs while a deferred Unlock is pending: unlocking an unlocked mutex
// is a fatal error that recover cannot catch. Not when a function literal of
// the function locks the mutex and never unlocks it: a goroutine that hands
// the lock over (`go func() { mu.Lock(); ...; close(done) }()`, then
// `<-done; mu.Unlock()`).
//
// It also reports a lease that database/sql ties to the context it was
// acquired with, used where that context is known to be done: a *sql.Tx
// from BeginTx(ctx, ...) of a DB or Conn, which database/sql rolls back as
// soon as ctx ends, so that Commit, Exec, Query, ... fail with
// sql.ErrTxDone or the context's error; *sql.Rows from QueryContext(ctx,
// ...), which it closes, so that Next returns false and Scan fails. Known
// done means inside the case <-ctx.Done() of a select, in the statements
// after <-ctx.Done(), or in the body of if ctx.Err() != nil, if err :=
// ctx.Err(); err != nil or if errors.Is(ctx.Err(), ...). Rollback, Close and rows.Err are how to finish
// there and are not reported; nor are leases acquired with another context
// (context.WithoutCancel(ctx), context.Background()), leases or contexts
// assigned more than once in the function, and uses in closures. A *sql.Conn
// from DB.Conn(ctx) and a statement from PrepareContext(ctx, ...) outlive
// the context they were acquired with and are not concerned. For example:
// "tx from (*sql.DB).BeginTx is used after its context ctx is done, so
// tx.Commit fails (with sql.ErrTxDone or the context's error): database/sql
// rolls the transaction back as soon as ctx ends".
//
// It also reports a deferred release that is given the context its lease
// was taken with: a value taken by a context-bound call (`l, err :=
// locks.Lock(ctx, key, ttl)`, `lease, err := api.AcquireLease(ctx, id)`)
// and given back by a deferred call that takes a context and refers to it,
// named like a remote release (Release..., Unlock..., Revoke...; the
// knowledge table's RemoteReleasePrefixes): `defer l.Unlock(ctx)`, `defer
// func() { api.ReleaseLease(ctx, id, lease.Nonce) }()`. On the return that
// cancellation causes, that context (or a child of it) has already ended,
// so the release fails at once and the lock or lease stays held until it
// expires. A release given context.WithoutCancel(ctx), a context bounded
// by its own timeout, or one the caller's cancellation does not end is
// quiet. Fix: context.WithoutCancel(ctx) in place of ctx (Go 1.21 and
// later). For example: "the deferred Unlock is given ctx, which has
// already ended when the function returns because ctx was canceled: the
// release then fails at once, and what (Locker).Lock took stays held until
// it expires".
//
// Pairs of methods of one type whose bodies take and give back the same
// field are leases like the table's pairs, whatever they are called: one
// sends on a channel field of its receiver (a semaphore) or locks a mutex
// field and returns holding it, and another, taking nothing, receives from
// that channel or unlocks that mutex (ownership's PairedRelease).
// `if err := u.acquire(ctx); err != nil { return err }` followed by a
// return before `defer u.release()` keeps the slot. A channel the package
// fills with tokens in a loop is a pool, where the receive takes.
//
// Not reported: findings in _test.go files, unless the tests setting is
// on; leases of func main of package main, whose return ends the process, and of
// the functions main runs as its last act (`if err := run(); err != nil {
// log.Fatal(err) }`: ctxflow's MainLike, the one policy for every check); timers and tickers in Go 1.23+ files; leases stored in
// fields, slices or maps right at the acquisition; paths that end in a
// panic or a call that never returns; locks of functions that never unlock
// them.
//
// To silence one finding, give a reason:
//
//	//cancelcheck:ignore leaseleak the connection is closed by the pool's reaper
package leaseleak
