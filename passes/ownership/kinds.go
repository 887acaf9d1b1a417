package ownership

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// Kind is a kind of lease: how it is named in messages, how it is released
// and what leaking it costs at run time.
type Kind struct {
	// ID names the kind in facts: "cancel", "timer", "file", ...
	ID string
	// Noun names the acquired object: "cancel function", "file".
	Noun string
	// Verb is the past participle of releasing: "called", "closed".
	Verb string
	// Release lists the methods that release the lease (or hand it to a
	// new owner, like rt/lease's Transfer).
	Release []string
	// Call is true when the lease is a function and calling it releases it.
	Call bool
	// Field, when set, is the field through which the lease is released
	// (resp.Body.Close()). "*" means any field (the generic kind).
	Field string
	// Consequence completes "so ..." in messages.
	Consequence string
	// Timer is true for timers and tickers, which from Go 1.23 are
	// collected when unreferenced even if not stopped.
	Timer bool
	// NextCloses is true when a Next() call returning false releases the
	// lease (database/sql.Rows).
	NextCloses bool
	// Fix is the release call for a suggested fix, with %s for the lease
	// variable ("%s.Close()"); empty when no fix is safe to offer.
	Fix string
	// NilOnError is true when the lease is nil when the acquisition's error
	// is not nil, so releasing it then would panic.
	NilOnError bool
	// Plural is true when Noun is plural ("rows"): messages say "are".
	Plural bool
}

// Is is the verb "to be" agreeing with Noun.
func (k *Kind) Is() string {
	if k.Plural {
		return "are"
	}
	return "is"
}

// It is the pronoun for Noun.
func (k *Kind) It() string {
	if k.Plural {
		return "they"
	}
	return "it"
}

// Releases reports whether calling method name on the lease releases it.
func (k *Kind) Releases(name string) bool { return slices.Contains(k.Release, name) }

// Built-in lease kinds.
var (
	KindCancel = &Kind{ID: "cancel", Noun: "cancel function", Verb: "called", Call: true, Fix: "%s()",
		Consequence: "the child context and its resources live until the parent context ends"}
	// KindCancelCause is the CancelCauseFunc of context.WithCancelCause,
	// which takes the cause: the fix calls it with nil (cause Canceled).
	KindCancelCause = &Kind{ID: "cancel-cause", Noun: "cancel function", Verb: "called", Call: true, Fix: "%s(nil)",
		Consequence: "the child context and its resources live until the parent context ends"}
	KindCancelTimer = &Kind{ID: "cancel-timer", Noun: "cancel function", Verb: "called", Call: true, Fix: "%s()",
		Consequence: "the timer and the child context live until the deadline passes or the parent context ends"}
	KindTimer = &Kind{ID: "timer", Noun: "timer", Verb: "stopped", Release: []string{"Stop"}, Timer: true, Fix: "%s.Stop()",
		Consequence: "the timer stays in the runtime's heap until it fires"}
	KindTicker = &Kind{ID: "ticker", Noun: "ticker", Verb: "stopped", Release: []string{"Stop"}, Timer: true, Fix: "%s.Stop()",
		Consequence: "the ticker keeps firing and is never collected"}
	KindRows = &Kind{ID: "rows", Noun: "rows", Verb: "closed", Release: []string{"Close"}, NextCloses: true, Fix: "%s.Close()", NilOnError: true, Plural: true,
		Consequence: "the database connection is not returned to the pool"}
	KindTx = &Kind{ID: "tx", Noun: "transaction", Verb: "committed or rolled back", Release: []string{"Commit", "Rollback"}, Fix: "%s.Rollback()", NilOnError: true,
		Consequence: "the transaction keeps its connection and its locks"}
	KindStmt = &Kind{ID: "stmt", Noun: "prepared statement", Verb: "closed", Release: []string{"Close"}, Fix: "%s.Close()", NilOnError: true,
		Consequence: "the statement stays prepared on its connections"}
	KindConn = &Kind{ID: "conn", Noun: "connection", Verb: "closed", Release: []string{"Close"}, Fix: "%s.Close()", NilOnError: true,
		Consequence: "the connection and its file descriptor stay open"}
	KindBody = &Kind{ID: "body", Noun: "response body", Verb: "closed", Release: []string{"Close"}, Field: "Body", Fix: "%s.Body.Close()", NilOnError: true,
		Consequence: "the connection cannot be reused and leaks with its goroutines"}
	KindFile = &Kind{ID: "file", Noun: "file", Verb: "closed", Release: []string{"Close"}, Fix: "%s.Close()", NilOnError: true,
		Consequence: "the file descriptor stays open until a finalizer runs"}
	KindListener = &Kind{ID: "listener", Noun: "listener", Verb: "closed", Release: []string{"Close"}, Fix: "%s.Close()", NilOnError: true,
		Consequence: "its address (a port, a socket path) stays bound and its file descriptor open"}
	KindServer = &Kind{ID: "server", Noun: "test server", Verb: "closed", Release: []string{"Close"}, Fix: "%s.Close()",
		Consequence: "its listener and serving goroutines outlive the test"}
	KindSpan = &Kind{ID: "span", Noun: "span", Verb: "ended", Release: []string{"End"}, Fix: "%s.End()",
		Consequence: "the span is never exported and its data stays in memory"}
	KindLease = &Kind{ID: "lease", Noun: "lease", Verb: "released", Release: []string{"Release", "Transfer"},
		Consequence: "its cleanup never runs"}
)

// genericRelease lists the method names that release some lease; a
// parameter on which a function calls one of them is taken to be released.
var genericRelease = []string{
	"Close", "Stop", "Release", "End", "Unlock", "RUnlock", "Rollback", "Commit",
	"Cancel", "Transfer", "Shutdown", "Finish", "Free", "Dispose", "CloseSend",
	// Common names of user release methods (configured leases).
	"Put", "Return", "Recycle", "Unref", "DecRef", "Unpin",
}

// generic is the kind used for parameters, whose kind is not known: any
// release-named method, on the value or one of its fields, releases it, and
// so does calling it.
var generic = &Kind{ID: "generic", Release: genericRelease, Call: true, Field: "*"}

// Generic returns the kind of a parameter whose kind is not known: any
// release-named method on it or one of its fields, or calling it, releases
// it.
func Generic() *Kind { return generic }

var builtinKinds = []*Kind{KindCancel, KindCancelCause, KindCancelTimer, KindTimer, KindTicker, KindRows, KindTx, KindStmt,
	KindConn, KindBody, KindFile, KindListener, KindServer, KindSpan, KindLease, KindPgxTx, KindPooledConn}

// KindByID returns the built-in kind with the given ID, or nil.
func KindByID(id string) *Kind {
	for _, k := range builtinKinds {
		if k.ID == id {
			return k
		}
	}
	return nil
}

// acquirer is a function or method that returns a lease.
type acquirer struct {
	pkg, recv, name string // recv is "" for package-level functions
	idx             int    // result index of the lease
	kind            *Kind
}

const rtLease = "github.com/cancelcheck/cancelcheck/rt/lease"

// Rows and statements of a *sql.Tx are not listed: the transaction closes
// them when it commits or rolls back (database/sql documents it for
// statements; rows are closed when the transaction's context ends), so
// they are released with the transaction, which is a lease of its own
// where it is begun.
var acquirers = append([]acquirer{
	{"context", "", "WithCancel", 1, KindCancel},
	{"context", "", "WithCancelCause", 1, KindCancelCause},
	{"context", "", "WithTimeout", 1, KindCancelTimer},
	{"context", "", "WithTimeoutCause", 1, KindCancelTimer},
	{"context", "", "WithDeadline", 1, KindCancelTimer},
	{"context", "", "WithDeadlineCause", 1, KindCancelTimer},
	{"time", "", "NewTimer", 0, KindTimer},
	{"time", "", "NewTicker", 0, KindTicker},
	{"database/sql", "DB", "Query", 0, KindRows},
	{"database/sql", "DB", "QueryContext", 0, KindRows},
	{"database/sql", "Conn", "QueryContext", 0, KindRows},
	{"database/sql", "Stmt", "Query", 0, KindRows},
	{"database/sql", "Stmt", "QueryContext", 0, KindRows},
	{"database/sql", "DB", "Begin", 0, KindTx},
	{"database/sql", "DB", "BeginTx", 0, KindTx},
	{"database/sql", "Conn", "BeginTx", 0, KindTx},
	{"database/sql", "DB", "Prepare", 0, KindStmt},
	{"database/sql", "DB", "PrepareContext", 0, KindStmt},
	{"database/sql", "Conn", "PrepareContext", 0, KindStmt},
	{"database/sql", "DB", "Conn", 0, KindConn},
	{"net/http", "", "Get", 0, KindBody},
	{"net/http", "", "Post", 0, KindBody},
	{"net/http", "", "PostForm", 0, KindBody},
	{"net/http", "Client", "Do", 0, KindBody},
	{"net/http", "Client", "Get", 0, KindBody},
	{"net/http", "Client", "Post", 0, KindBody},
	{"net/http", "Client", "PostForm", 0, KindBody},
	{"net", "", "Dial", 0, KindConn},
	{"net", "", "DialTimeout", 0, KindConn},
	{"net", "Dialer", "Dial", 0, KindConn},
	{"net", "Dialer", "DialContext", 0, KindConn},
	{"net", "", "Listen", 0, KindListener},
	{"net", "ListenConfig", "Listen", 0, KindListener},
	{"os/signal", "", "NotifyContext", 1, KindCancel},
	{"net/http", "Transport", "RoundTrip", 0, KindBody},
	{"net/http", "RoundTripper", "RoundTrip", 0, KindBody},
	{"net", "", "DialTCP", 0, KindConn},
	{"net", "", "DialUDP", 0, KindConn},
	{"net", "", "DialUnix", 0, KindConn},
	{"net", "", "DialIP", 0, KindConn},
	{"net", "Listener", "Accept", 0, KindConn},
	{"net", "TCPListener", "Accept", 0, KindConn},
	{"net", "TCPListener", "AcceptTCP", 0, KindConn},
	{"net", "UnixListener", "Accept", 0, KindConn},
	{"net", "UnixListener", "AcceptUnix", 0, KindConn},
	{"net", "", "ListenPacket", 0, KindListener},
	{"net", "", "ListenTCP", 0, KindListener},
	{"net", "", "ListenUDP", 0, KindListener},
	{"net", "", "ListenUnix", 0, KindListener},
	{"net", "ListenConfig", "ListenPacket", 0, KindListener},
	{"crypto/tls", "", "Dial", 0, KindConn},
	{"crypto/tls", "", "DialWithDialer", 0, KindConn},
	{"crypto/tls", "Dialer", "Dial", 0, KindConn},
	{"crypto/tls", "Dialer", "DialContext", 0, KindConn},
	{"crypto/tls", "", "Listen", 0, KindListener},
	{"net/http/httptest", "", "NewServer", 0, KindServer},
	{"net/http/httptest", "", "NewTLSServer", 0, KindServer},
	{"net/http/httptest", "", "NewUnstartedServer", 0, KindServer},
	{"archive/zip", "", "OpenReader", 0, KindFile},
	{"os", "", "OpenInRoot", 0, KindFile},
	{"os", "Root", "Open", 0, KindFile},
	{"os", "Root", "Create", 0, KindFile},
	{"os", "Root", "OpenFile", 0, KindFile},
	{"os", "", "Open", 0, KindFile},
	{"os", "", "OpenFile", 0, KindFile},
	{"os", "", "Create", 0, KindFile},
	{"os", "", "CreateTemp", 0, KindFile},
	{"go.opentelemetry.io/otel/trace", "Tracer", "Start", 1, KindSpan},
	{"go.opencensus.io/trace", "", "StartSpan", 1, KindSpan},
	{"go.opencensus.io/trace", "", "StartSpanWithRemoteParent", 1, KindSpan},
	{rtLease, "", "Owned", 0, KindLease},
	{rtLease, "Reaper", "Owned", 0, KindLease},
}, libraryAcquirers()...)

const (
	sqlx    = "github.com/jmoiron/sqlx"
	pgx4    = "github.com/jackc/pgx/v4"
	pgx5    = "github.com/jackc/pgx/v5"
	pgxpool = "/pgxpool"
)

// KindPgxTx is a pgx transaction: released by Commit or Rollback, which
// take a context, so no fix is offered. KindPooledConn is a connection
// acquired from a pgx pool, returned by Release.
var (
	KindPgxTx = &Kind{ID: "pgx-tx", Noun: "transaction", Verb: "committed or rolled back", Release: []string{"Commit", "Rollback"}, NilOnError: true,
		Consequence: "the transaction keeps its connection and its locks"}
	KindPooledConn = &Kind{ID: "pooled-conn", Noun: "pooled connection", Verb: "released", Release: []string{"Release"}, Fix: "%s.Release()", NilOnError: true,
		Consequence: "the connection is never returned to the pool, which runs dry"}
)

// libraryAcquirers are the acquirers of the database libraries most Go
// services use besides database/sql: sqlx (whose types embed
// database/sql's, so rows are released by Next returning false too) and
// pgx, whose Rows close when Next returns false and whose transactions do
// not close their rows.
func libraryAcquirers() []acquirer {
	var acquirers []acquirer
	for _, name := range []string{"Queryx", "QueryxContext", "NamedQuery", "NamedQueryContext"} {
		acquirers = append(acquirers, acquirer{sqlx, "DB", name, 0, KindRows})
	}
	acquirers = append(acquirers,
		acquirer{sqlx, "Conn", "QueryxContext", 0, KindRows},
		acquirer{sqlx, "Stmt", "Queryx", 0, KindRows},
		acquirer{sqlx, "Stmt", "QueryxContext", 0, KindRows},
		acquirer{sqlx, "NamedStmt", "Queryx", 0, KindRows},
		acquirer{sqlx, "NamedStmt", "QueryxContext", 0, KindRows},
		acquirer{sqlx, "NamedStmt", "Query", 0, KindRows},
		acquirer{sqlx, "NamedStmt", "QueryContext", 0, KindRows},
		acquirer{sqlx, "DB", "Preparex", 0, KindStmt},
		acquirer{sqlx, "DB", "PreparexContext", 0, KindStmt},
		acquirer{sqlx, "DB", "PrepareNamed", 0, KindStmt},
		acquirer{sqlx, "DB", "PrepareNamedContext", 0, KindStmt},
		acquirer{sqlx, "Conn", "PreparexContext", 0, KindStmt},
		acquirer{sqlx, "Conn", "PrepareNamedContext", 0, KindStmt},
		acquirer{sqlx, "DB", "Beginx", 0, KindTx},
		acquirer{sqlx, "DB", "BeginTxx", 0, KindTx},
		acquirer{sqlx, "Conn", "BeginTxx", 0, KindTx},
		acquirer{sqlx, "DB", "Connx", 0, KindConn},
	)
	for _, mod := range []string{pgx4, pgx5} {
		for _, recv := range []string{"Conn", "Tx"} {
			acquirers = append(acquirers, acquirer{mod, recv, "Query", 0, KindRows})
		}
		acquirers = append(acquirers,
			acquirer{mod, "Conn", "Begin", 0, KindPgxTx},
			acquirer{mod, "Conn", "BeginTx", 0, KindPgxTx},
		)
		for _, recv := range []string{"Pool", "Conn", "Tx"} {
			acquirers = append(acquirers, acquirer{mod + pgxpool, recv, "Query", 0, KindRows})
		}
		acquirers = append(acquirers,
			acquirer{mod + pgxpool, "Pool", "Acquire", 0, KindPooledConn},
			acquirer{mod + pgxpool, "Pool", "Begin", 0, KindPgxTx},
			acquirer{mod + pgxpool, "Pool", "BeginTx", 0, KindPgxTx},
		)
	}
	return acquirers
}

// acquirersByName indexes acquirers by function name: Acquisition is asked
// about every call the checks look at.
var acquirersByName = func() map[string][]acquirer {
	m := make(map[string][]acquirer)
	for _, a := range acquirers {
		m[a.name] = append(m[a.name], a)
	}
	return m
}()

// Acquisition describes a call that acquires a lease.
type Acquisition struct {
	Kind  *Kind
	Index int    // result index of the lease
	Err   int    // result index of the error, or -1
	Name  string // the callee for messages: "context.WithTimeout", "(*sql.DB).QueryContext"
	Fn    *types.Func
	// MayBeNil is set when the acquirer may return nil instead of a lease
	// (see ReturnsLease).
	MayBeNil bool
}

// Acquisition returns what call acquires, or nil. Calls to functions known
// by a ReturnsLease fact to return a lease they acquired count too, and so
// do the extra acquirers the check was configured with.
func (r *Result) Acquisition(call *ast.CallExpr) *Acquisition {
	fn := analysisutil.Callee(r.info, call)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	sig := fn.Type().(*types.Signature)
	mk := func(k *Kind, idx int) *Acquisition {
		if idx >= sig.Results().Len() {
			return nil
		}
		return &Acquisition{Kind: k, Index: idx, Err: errResult(sig, idx), Name: FuncName(fn), Fn: fn}
	}
	for _, a := range acquirersByName[fn.Name()] {
		if a.recv == "" && analysisutil.IsFunc(fn, a.pkg, a.name) ||
			a.recv != "" && analysisutil.IsMethod(fn, a.pkg, a.recv, a.name) {
			if a.kind == KindBody && len(call.Args) == 1 && r.headRequest(call.Args[0]) {
				// The response to a HEAD request has no body (http.NoBody),
				// and the transport returns its connection at once.
				return nil
			}
			return mk(a.kind, a.idx)
		}
	}
	for _, x := range r.extra {
		if x.Matches(fn) {
			return mk(x.Kind, x.Index)
		}
	}
	if f := r.returnsLease(fn); f != nil {
		if k := KindByID(f.KindID); k != nil {
			if a := mk(k, f.Index); a != nil {
				a.MayBeNil = f.MayBeNil
				return a
			}
		}
	}
	return nil
}

// headRequest reports whether e is a request for the HEAD method: made by
// http.NewRequest or NewRequestWithContext with the constant method "HEAD",
// or a literal &http.Request{Method: "HEAD"}, directly or through a local
// declared from one.
func (r *Result) headRequest(e ast.Expr) bool {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		v, ok := r.info.Uses[id].(*types.Var)
		if !ok || r.ins == nil {
			return false
		}
		_, lhs, rhs, idx, ok := analysisutil.Declaration(r.ins, v)
		if !ok {
			return false
		}
		switch {
		case len(lhs) == len(rhs):
			e = ast.Unparen(rhs[idx])
		case len(rhs) == 1 && idx == 0:
			e = ast.Unparen(rhs[0]) // req, err := http.NewRequest(...)
		default:
			return false
		}
	}
	isHead := func(m ast.Expr) bool {
		tv, ok := r.info.Types[m]
		return ok && tv.Value != nil && tv.Value.Kind() == constant.String && constant.StringVal(tv.Value) == "HEAD"
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		switch {
		case analysisutil.IsCallToFunc(r.info, x, "net/http", "NewRequest") && len(x.Args) > 0:
			return isHead(x.Args[0])
		case analysisutil.IsCallToFunc(r.info, x, "net/http", "NewRequestWithContext") && len(x.Args) > 1:
			return isHead(x.Args[1])
		}
	case *ast.UnaryExpr:
		if lit, ok := ast.Unparen(x.X).(*ast.CompositeLit); ok && x.Op == token.AND && analysisutil.IsNamed(r.info.TypeOf(lit), "net/http", "Request") {
			for _, el := range lit.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Method" {
						return isHead(kv.Value)
					}
				}
			}
		}
	}
	return false
}

// ErrResult returns the index of sig's error result: the result of type
// error, or else a last result of a type that implements error (a
// *HandlerError), other than the lease's (index lease); -1 when there is
// none.
func ErrResult(sig *types.Signature, lease int) int { return errResult(sig, lease) }

func errResult(sig *types.Signature, lease int) int {
	if i := analysisutil.ErrorResult(sig); i >= 0 {
		return i
	}
	last := sig.Results().Len() - 1
	if last >= 0 && last != lease && analysisutil.IsError(sig.Results().At(last).Type()) {
		return last
	}
	return -1
}

// Extra is a lease kind configured by the user.
type Extra struct {
	// Pkg, Recv and Name name the acquiring function or method; Recv is ""
	// for package-level functions.
	Pkg, Recv, Name string
	// Index is the result holding the lease.
	Index int
	Kind  *Kind
}

// Matches reports whether fn is the configured acquirer.
func (x *Extra) Matches(fn *types.Func) bool {
	if x.Recv == "" {
		return analysisutil.IsFunc(fn, x.Pkg, x.Name)
	}
	return analysisutil.IsMethod(fn, x.Pkg, x.Recv, x.Name)
}

// FuncName spells fn for messages: "os.Open", "(*sql.DB).QueryContext",
// "(trace.Tracer).Start".
func FuncName(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		if fn.Pkg() == nil {
			return fn.Name()
		}
		return fn.Pkg().Name() + "." + fn.Name()
	}
	t := sig.Recv().Type()
	ptr := ""
	if p, ok := t.(*types.Pointer); ok {
		t, ptr = p.Elem(), "*"
	}
	name := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
		name = n.Obj().Pkg().Name() + "." + n.Obj().Name()
	}
	return "(" + ptr + name + ")." + fn.Name()
}
