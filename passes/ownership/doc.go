// Package ownership computes, once per package, who owns the leases a
// function handles: values acquired from a call that must be given back
// (cancel functions, timers, rows, transactions, response bodies, files,
// connections, spans, runtime leases), and the facts that carry ownership
// across function and package boundaries.
//
// # Analyzer ownership
//
// ownership: compute which functions release their parameters or return owned leases
//
// ownership reports nothing. Its result, a *Result, answers for the checks:
//
//   - whether a call acquires a lease, of which kind, in which result
//     (Result.Acquisition);
//   - how one use of a lease variable treats it: it borrows it (reads,
//     non-releasing method calls, passing it to a function that does not
//     take ownership), releases it (Close, Stop, cancel(), End, Rollback,
//     ...), or hands it off (returns it, stores it in an owner that releases
//     it, sends it, appends it, gives it to a goroutine or to a function that
//     takes ownership, or to code it cannot see, or to a call whose result
//     is kept in a package variable: `opts.logger = log.New(f, "", 0)`
//     keeps f for the life of the program) (Result.UseOf);
//   - whether a field of a package type is released somewhere in the package.
//
// Two facts cross package boundaries: Consumes marks functions that release
// or take ownership of some of their parameters ("releases its parameter
// N"), and ReturnsLease marks functions that return a lease they acquired,
// which their callers then own and must release. Both are exported only for
// functions and methods other packages can name; calls within the package
// are answered from the pass's own summaries.
package ownership
