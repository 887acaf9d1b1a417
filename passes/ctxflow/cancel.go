package ctxflow

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"sync"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// CallMayCarryCancel reports whether result idx of call is an error that may
// carry cancellation: the call is context-bound and not every context it is
// given is detached (see Detached).
func (r *Result) CallMayCarryCancel(call *ast.CallExpr, idx int) bool {
	return r.callCarries(call, idx)
}

// detachedCall reports whether every context or request call passes is
// detached, so that its error cannot carry a caller's cancellation. Calls
// of functions that take no context but carry cancellation (a receiver
// context) are never detached.
func (r *Result) detachedCall(call *ast.CallExpr) bool {
	if fn := analysisutil.Callee(r.info, call); fn != nil && !analysisutil.TakesContext(fn.Type().(*types.Signature)) &&
		(r.local[fn] || r.pass.ImportObjectFact(fn.Origin(), new(CarriesCancel))) {
		return false
	}
	n := 0
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		if analysisutil.IsHTTPRequest(t) {
			if !r.detachedRequest(arg, 0) {
				return false
			}
			n++
			continue
		}
		if analysisutil.IsContext(t) {
			if !r.Detached(arg) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// Detached reports whether the context expression e can never be canceled
// nor reach a deadline: context.Background(), context.TODO(),
// context.WithoutCancel(x), or a local variable only ever assigned those.
func (r *Result) Detached(e ast.Expr) bool { return r.ctxIs(e, r.detachedValue, 0) }

// DeadlineOnly reports whether the context expression e can end only by its
// own deadline: context.WithTimeout or WithDeadline (or their Cause forms)
// of a detached parent, or a local variable only ever assigned those. Such a
// context's end is always a timeout.
func (r *Result) DeadlineOnly(e ast.Expr) bool { return r.ctxIs(e, r.deadlineValue, 0) }

func (r *Result) ctxIs(e ast.Expr, pred func(*ast.CallExpr, int) bool, depth int) bool {
	if depth > 8 {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		return pred(e, depth)
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok {
			return false
		}
		vals := r.ctxAssigns[v]
		if len(vals) == 0 {
			// A parameter: what every caller passes, when all of them
			// are in view; a field, or never assigned here: unknown.
			return r.paramIs(v, pred, depth)
		}
		own := 0
		for _, val := range vals {
			call, ok := ast.Unparen(val).(*ast.CallExpr)
			if val == nil || !ok {
				return false
			}
			if r.selfDerived(call, v) {
				// ctx, span := tracer.Start(ctx, ...): values added to v's
				// own earlier value change nothing of its end.
				own++
				continue
			}
			if !pred(call, depth+1) {
				return false
			}
		}
		if own == len(vals) {
			// Only ever v with values added: what v started as decides,
			// a parameter's argument (ctx = context.WithValue(ctx, ...)).
			return r.paramIs(v, pred, depth)
		}
		return true
	}
	return false
}

// selfDerived reports whether call adds values only to the context v
// itself (context.WithValue(v, k, x), or a function known to add values
// only, given v): the result ends exactly when v's earlier value does.
func (r *Result) selfDerived(call *ast.CallExpr, v *types.Var) bool {
	fn := analysisutil.Callee(r.info, call)
	i := -1
	if analysisutil.IsFunc(fn, "context", "WithValue") {
		i = 0
	} else {
		i = r.addsValuesParam(fn)
	}
	if i < 0 || i >= len(call.Args) {
		return false
	}
	id, ok := ast.Unparen(call.Args[i]).(*ast.Ident)
	return ok && r.info.Uses[id] == v
}

// paramIs reports whether v is a parameter of a function of the package
// that only the package calls, directly (unexported, no receiver, never
// used as a value), and every call passes in v's place a context of which
// pred holds: `func resolve(ctx context.Context, ...)` whose callers all
// pass context.Background() is given a context that never ends.
func (r *Result) paramIs(v *types.Var, pred func(*ast.CallExpr, int) bool, depth int) bool {
	return r.everyArg(v, func(arg ast.Expr) bool { return r.ctxIs(arg, pred, depth+1) })
}

// everyArg reports whether v is a parameter of a function only the
// package calls, directly, and holds of what every call passes for it.
func (r *Result) everyArg(v *types.Var, holds func(ast.Expr) bool) bool {
	f, i := r.ParamOf(v)
	if f == nil || f.Obj == nil || (f.Sig.Variadic() && i == f.Sig.Params().Len()-1) {
		return false
	}

	calls, escapes := r.CallsOf(f.Obj)
	if escapes || len(calls) == 0 {
		return false
	}
	for _, call := range calls {
		if call.Ellipsis.IsValid() || i >= len(call.Args) || !holds(call.Args[i]) {
			return false
		}
	}
	return true
}

// interfaceMethod reports whether some interface type of the package
// (declared or literal) has a method called name.
func (r *Result) interfaceMethod(name string) bool {
	r.ifaces.once.Do(func() {
		r.ifaces.m = make(map[string]bool)
		for _, tv := range r.info.Types {
			if it, ok := tv.Type.Underlying().(*types.Interface); ok && tv.IsType() {
				for i := range it.NumMethods() {
					r.ifaces.m[it.Method(i).Name()] = true
				}
			}
		}
	})
	return r.ifaces.m[name]
}

// nameTable is a set of names computed once.
type nameTable struct {
	once sync.Once
	m    map[string]bool
}

// DetachedRequestParam reports whether every call of the function of the
// *http.Request parameter v (unexported, no receiver, never used as a
// value) passes a request made without a context (http.ReadRequest,
// http.NewRequest): its Context() never ends.
func (r *Result) DetachedRequestParam(v *types.Var) bool {
	return r.everyArg(v, func(arg ast.Expr) bool { return r.detachedRequest(arg, 1) })
}

// DetachedParam reports whether the context parameter v is given a
// detached context by every call of its function (see paramIs): it can
// never be canceled, and a fresh root beside it cuts nothing off.
func (r *Result) DetachedParam(v *types.Var) bool { return r.paramIs(v, r.detachedValue, 0) }

func (r *Result) detachedValue(call *ast.CallExpr, depth int) bool {
	fn := analysisutil.Callee(r.info, call)
	switch {
	case analysisutil.IsFunc(fn, "context", "Background"), analysisutil.IsFunc(fn, "context", "TODO"),
		analysisutil.IsFunc(fn, "context", "WithoutCancel"):
		return true
	case analysisutil.IsMethod(fn, "testing", "common", "Context"), analysisutil.IsMethod(fn, "testing", "TB", "Context"):
		// A test's context is canceled only once the test function has
		// returned, before its cleanups: no step of the test sees it end.
		return true
	case analysisutil.IsFunc(fn, "context", "WithValue"):
		return len(call.Args) > 0 && r.ctxIs(call.Args[0], r.detachedValue, depth+1)
	case fn != nil && r.ReturnsRoot(fn):
		return true
	}
	if i := r.addsValuesParam(fn); i >= 0 && i < len(call.Args) {
		// xlog.NewContext(context.Background(), l): values added to a
		// context that cannot end.
		return r.ctxIs(call.Args[i], r.detachedValue, depth+1)
	}
	return false
}

func (r *Result) deadlineValue(call *ast.CallExpr, depth int) bool {
	fn := analysisutil.Callee(r.info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || len(call.Args) == 0 {
		return false
	}
	switch fn.Name() {
	case "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause":
		return r.ctxIs(call.Args[0], r.detachedValue, depth+1)
	case "WithValue":
		return r.ctxIs(call.Args[0], r.deadlineValue, depth+1)
	}
	return false
}

// CtxErrOf returns X when e is X.Err() for a context X, or a local error
// variable only ever assigned X.Err() (the same X); otherwise nil. Such an
// error is never wrapped, so comparing it with == is exact.
func (r *Result) CtxErrOf(e ast.Expr) ast.Expr { return r.ctxErrOf(e, false, nil) }

// CtxEndOf is CtxErrOf that also takes context.Cause(X): an error that
// reports X's end, though perhaps as a custom cause (so not for ==).
func (r *Result) CtxEndOf(e ast.Expr) ast.Expr { return r.ctxErrOf(e, true, nil) }

// ctxErrOf answers CtxErrOf and CtxEndOf; seen holds the variables whose
// assignments are being followed, so that cycles (err = err2; err2 = err,
// a named result returned as itself) end.
func (r *Result) ctxErrOf(e ast.Expr, cause bool, seen map[*types.Var]bool) ast.Expr {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok &&
			analysisutil.IsMethod(fn, "context", "Context", "Err") {
			return sel.X
		}
		if cause && len(e.Args) == 1 && analysisutil.IsFunc(fn, "context", "Cause") {
			return e.Args[0]
		}
		// sleepCtx(ctx, d): a helper whose error is always ctx's.
		if f := r.returnsCtxErr(fn); f != nil && (cause || !f.Cause) && f.Param < len(e.Args) && singleResult(r.info, e) {
			return e.Args[f.Param]
		}
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok || seen[v] {
			return nil
		}
		if seen == nil {
			seen = map[*types.Var]bool{}
		}
		seen[v] = true
		defer delete(seen, v)
		list := r.assigns[v]
		var x ast.Expr
		for _, a := range list {
			if a.param {
				return nil // a caller's argument is not this function's
			}
			var ax ast.Expr
			switch {
			case a.rhs != nil:
				ax = r.ctxErrOf(a.rhs, cause, seen)
			case a.call != nil:
				// v, err := waitFor(ctx, ...): the error result of a
				// ReturnsCtxErr helper.
				fn := analysisutil.Callee(r.info, a.call)
				sig, _ := r.info.TypeOf(a.call.Fun).Underlying().(*types.Signature)
				if f := r.returnsCtxErr(fn); f != nil && (cause || !f.Cause) && sig != nil && a.idx == analysisutil.ErrorResult(sig) && f.Param < len(a.call.Args) {
					ax = a.call.Args[f.Param]
				}
			}
			if ax == nil || (x != nil && types.ExprString(x) != types.ExprString(ax)) {
				return nil
			}
			x = ax
		}
		return x
	}
	return nil
}

// DoneContext returns X when comm is the communication of `case <-X.Done():`
// (or `case _, ok := <-X.Done():`...) for a context X, otherwise nil.
func (r *Result) DoneContext(comm ast.Stmt) ast.Expr {
	var x ast.Expr
	switch s := comm.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			x = s.Rhs[0]
		}
	}
	u, ok := ast.Unparen(x).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil
	}
	if id, ok := ast.Unparen(u.X).(*ast.Ident); ok {
		// done := ctx.Done(); ... case <-done: every value the variable is
		// given is the Done channel of the same context.
		return r.doneVarContext(r.info.Uses[id])
	}
	return r.doneCallContext(u.X)
}

// doneCallContext returns X when e is X.Done() for a context X.
func (r *Result) doneCallContext(e ast.Expr) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !analysisutil.IsMethod(analysisutil.Callee(r.info, call), "context", "Context", "Done") {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	return sel.X
}

// doneVarContext returns the context X when every assignment to the local
// variable obj gives it X.Done() (the same X each time), else nil.
func (r *Result) doneVarContext(obj types.Object) ast.Expr {
	vals := r.doneAssigns[obj]
	if len(vals) == 0 {
		return nil
	}
	var x ast.Expr
	for _, v := range vals {
		y := r.doneCallContext(v)
		if y == nil || x != nil && !analysisutil.SamePath(r.info, x, y) {
			return nil
		}
		x = y
	}
	return x
}

// isDoneChan reports whether t is <-chan struct{}, the type of a context's
// Done channel.
func isDoneChan(t types.Type) bool {
	ch, ok := t.Underlying().(*types.Chan)
	if !ok || ch.Dir() != types.RecvOnly {
		return false
	}
	st, ok := ch.Elem().Underlying().(*types.Struct)
	return ok && st.NumFields() == 0
}

// CancelTest describes a condition that holds only once a context has
// ended (or an error is a cancellation).
type CancelTest struct {
	// Ctx is the context whose end is tested (X in X.Err() != nil), or nil.
	Ctx ast.Expr
	// Err is the error tested (err in errors.Is(err, context.Canceled), or a
	// variable holding X.Err()), or nil.
	Err ast.Expr
	// Canceled and Deadline say which ends the condition admits.
	Canceled, Deadline bool
}

// CancelTestOf reports whether cond (the condition of an if statement)
// holds only when a context has ended
// or an error is a cancellation, and describes the test:
//
//	ctx.Err() != nil                  err := ctx.Err(); err != nil
//	errors.Is(err, context.Canceled)  err == context.DeadlineExceeded
//	a || b (both cancel tests)        a && b (either one)
func (r *Result) CancelTestOf(cond ast.Expr) (CancelTest, bool) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LOR:
			a, ok1 := r.CancelTestOf(c.X)
			b, ok2 := r.CancelTestOf(c.Y)
			if !ok1 || !ok2 {
				return CancelTest{}, false
			}
			if a.Ctx == nil {
				a.Ctx = b.Ctx
			}
			if a.Err == nil {
				a.Err = b.Err
			}
			a.Canceled = a.Canceled || b.Canceled
			a.Deadline = a.Deadline || b.Deadline
			return a, true
		case token.LAND:
			if t, ok := r.CancelTestOf(c.X); ok {
				return t, true
			}
			return r.CancelTestOf(c.Y)
		case token.NEQ:
			x, y := c.X, c.Y
			if isNil(r.info, x) {
				x, y = y, x
			}
			if !isNil(r.info, y) {
				return CancelTest{}, false
			}
			if ctx := r.CtxErrOf(x); ctx != nil {
				t := CancelTest{Ctx: ctx, Canceled: true, Deadline: true}
				if _, isCall := ast.Unparen(x).(*ast.CallExpr); !isCall {
					t.Err = x
				}
				return t, true
			}
		case token.EQL:
			x, y := c.X, c.Y
			if ContextSentinel(r.info, x) != "" {
				x, y = y, x
			}
			return r.sentinelTest(x, ContextSentinel(r.info, y))
		}
	case *ast.CallExpr:
		if analysisutil.IsCallToFunc(r.info, c, "errors", "Is") && len(c.Args) == 2 {
			return r.sentinelTest(c.Args[0], ContextSentinel(r.info, c.Args[1]))
		}
	}
	return CancelTest{}, false
}

func (r *Result) sentinelTest(x ast.Expr, sentinel string) (CancelTest, bool) {
	if sentinel == "" || ContextSentinel(r.info, x) != "" {
		return CancelTest{}, false
	}
	t := CancelTest{Err: x, Ctx: r.CtxErrOf(x)}
	if _, isCall := ast.Unparen(x).(*ast.CallExpr); isCall {
		t.Err = nil
	}
	if sentinel == "Canceled" {
		t.Canceled = true
	} else {
		t.Deadline = true
	}
	return t, true
}

// ContextSentinel returns "Canceled" or "DeadlineExceeded" when e names
// context.Canceled or context.DeadlineExceeded, otherwise "".
func ContextSentinel(info *types.Info, e ast.Expr) string {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		id = e.Sel
	case *ast.Ident:
		id = e
	default:
		return ""
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || v.Pkg() == nil || v.Pkg().Path() != "context" || v.Parent() != v.Pkg().Scope() {
		return ""
	}
	if v.Name() == "Canceled" || v.Name() == "DeadlineExceeded" {
		return v.Name()
	}
	return ""
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// ChecksCancel reports whether n mentions the end of a context: it calls
// Err or Done of a context, context.Cause, a function of the runtime's stop
// package, or names context.Canceled or context.DeadlineExceeded. Checks use
// it to recognise code that handles cancellation deliberately.
func (r *Result) ChecksCancel(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			fn := analysisutil.Callee(r.info, n)
			switch {
			case fn == nil:
			case analysisutil.IsMethod(fn, "context", "Context", "Err"),
				analysisutil.IsMethod(fn, "context", "Context", "Done"),
				analysisutil.IsFunc(fn, "context", "Cause"),
				fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), RuntimeModule+"/stop"):
				found = true
			}
		case *ast.SelectorExpr:
			if ContextSentinel(r.info, n) != "" {
				found = true
			}
		}
		return !found
	})
	return found
}

// RuntimeModule is the import path prefix of cancelcheck's reference
// runtime, which fixes may target.
const RuntimeModule = "github.com/cancelcheck/cancelcheck/rt"

// ImportsRuntime reports whether the package imports a package of the
// runtime module, so that fixes may use it.
func (r *Result) ImportsRuntime() bool {
	for _, imp := range r.pass.Pkg.Imports() {
		if imp.Path() == RuntimeModule || strings.HasPrefix(imp.Path(), RuntimeModule+"/") {
			return true
		}
	}
	return false
}

// receiverHoldsNoContext reports whether call is a method whose only way
// to a context is its receiver (it takes no context, and no parameter can
// bring one: no function, interface or context-holding struct), and the
// receiver holds no caller's context (holdsNoContext): the *sql.Tx of
// db.Begin(), the *exec.Cmd of exec.Command. Its error never carries
// cancellation although the type holds a context.
func (r *Result) receiverHoldsNoContext(fn *types.Func, call *ast.CallExpr) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || analysisutil.TakesContext(sig) || !hasContextInside(sig.Recv().Type()) {
		return false
	}
	for i := range sig.Params().Len() {
		if mayBringContext(sig.Params().At(i).Type()) {
			return false
		}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if s, ok := r.info.Selections[sel]; !ok || s.Kind() != types.MethodVal {
		return false
	}
	return r.holdsNoContext(sel.X, 0)
}

// holdsNoContext reports whether every value the expression e can hold
// (a context-holding value: a transaction, a command) was made by a call
// given no context but detached ones (Detached), nor anything else that
// could bring one (a function, an interface, a context-holding receiver or
// argument that does not itself hold none), by a function that does not
// reach a context of its own (CarriesCancel); directly or through local
// variables only ever assigned such values. db.Begin() and
// db.BeginTx(context.Background(), nil) hold none; db.BeginTx(ctx, nil),
// pool.Get() of an interface, and a parameter may.
// callOfLitParam returns, for a parameter of a function literal passed
// directly as an argument of a call, that call; or nil.
func (r *Result) callOfLitParam(v *types.Var) *ast.CallExpr {
	r.litCallsOnce.Do(func() {
		r.litCalls = map[*types.Var]*ast.CallExpr{}
		for c := range r.ins.Root().Preorder((*ast.CallExpr)(nil)) {
			call := c.Node().(*ast.CallExpr)
			for _, a := range call.Args {
				lit, ok := ast.Unparen(a).(*ast.FuncLit)
				if !ok || lit.Type.Params == nil {
					continue
				}
				for _, fld := range lit.Type.Params.List {
					for _, name := range fld.Names {
						if pv, ok := r.info.Defs[name].(*types.Var); ok {
							r.litCalls[pv] = call
						}
					}
				}
			}
		}
	})
	return r.litCalls[v]
}

// makesUnderDetached reports whether call, which hands values to a
// callback it is given, can give them no context but detached ones: it is
// given at least one context or request, all detached, and its receiver
// (for a method) holds no context of its own.
func (r *Result) makesUnderDetached(call *ast.CallExpr, depth int) bool {
	fn := analysisutil.Callee(r.info, call)
	if fn == nil {
		return false
	}
	given, ok := r.detachedInputs(call, fn, depth, true)
	return ok && given
}

// detachedInputs reports, for a call of fn, whether nothing it is given
// can bring a caller's context (ok): its receiver, for a method, holds
// none; every context or request argument is detached (given: there is
// one); an argument that holds a context holds none; no other argument
// could bring one (a function value, an interface), but for the function
// literals of a call that makes values for them, when callbacks is set.
func (r *Result) detachedInputs(call *ast.CallExpr, fn *types.Func, depth int, callbacks bool) (given, ok bool) {
	if fn.Type().(*types.Signature).Recv() != nil {
		sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !isSel {
			return false, false
		}
		s, isSel := r.info.Selections[sel]
		if !isSel || s.Kind() != types.MethodVal || types.IsInterface(s.Recv()) {
			return false, false
		}
		if hasContextInside(s.Recv()) && !r.holdsNoContext(sel.X, depth+1) {
			return false, false // tx.Stmt(s): as tx does
		}
	}
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		switch {
		case analysisutil.IsContext(t):
			if !r.Detached(arg) {
				return false, false
			}
			given = true
		case analysisutil.IsHTTPRequest(t):
			if !r.detachedRequest(arg, depth+1) {
				return false, false
			}
			given = true
		case hasContextInside(t):
			if !r.holdsNoContext(arg, depth+1) {
				return false, false
			}
		case mayBringContext(t):
			if _, lit := ast.Unparen(arg).(*ast.FuncLit); !callbacks || !lit {
				return false, false
			}
		}
	}
	return given, true
}

func (r *Result) holdsNoContext(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		if fn == nil {
			return false // a function value: anything
		}
		given, ok := r.detachedInputs(e, fn, depth, false)
		if !ok {
			return false
		}
		// Given no context, a function that still reaches one (a package
		// context, a field) may put it in what it makes.
		return given || !(r.local[fn] || r.pass.ImportObjectFact(fn.Origin(), new(CarriesCancel)))
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok {
			return false
		}
		if call := r.callOfLitParam(v); call != nil {
			// db.Write(context.TODO(), func(tx *bstore.Tx) error { ... }):
			// the value the callback is given is made by the call, under
			// the contexts the call is given.
			return r.makesUnderDetached(call, depth)
		}
		vals := r.holderAssigns[v]
		if len(vals) == 0 {
			return false // a parameter, a field, or never assigned here
		}
		for _, val := range vals {
			if val == nil || !r.holdsNoContext(val, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// detachedRequest reports whether the request e carries a detached
// context: it is built by http.NewRequest or httptest.NewRequest (whose
// context is Background), by http.NewRequestWithContext with a detached
// context, or by req.WithContext or req.Clone with one; or it is a local
// variable only ever assigned such requests. A request given to the
// function (a handler's, a parameter) is not detached.
func (r *Result) detachedRequest(e ast.Expr, depth int) bool {
	return r.requestIs(e, depth, r.Detached, r.givenNoContext)
}

// requestIs reports whether every request the expression e can hold is
// made without a context (http.NewRequest, httptest.NewRequest,
// http.ReadRequest), or given
// one that detached holds of (NewRequestWithContext, WithContext, Clone),
// or made by another call for which other holds (nil: none), directly or
// through local variables only ever assigned such values.
func (r *Result) requestIs(e ast.Expr, depth int, detached func(ast.Expr) bool, other func(*ast.CallExpr, int) bool) bool {
	if depth > 4 {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		switch {
		case analysisutil.IsFunc(fn, "net/http", "NewRequest"), analysisutil.IsFunc(fn, "net/http/httptest", "NewRequest"),
			analysisutil.IsFunc(fn, "net/http", "ReadRequest"):
			// http.ReadRequest parses a request off a connection: its
			// context is context.Background().
			return true
		case analysisutil.IsFunc(fn, "net/http", "NewRequestWithContext"),
			analysisutil.IsMethod(fn, "net/http", "Request", "WithContext"), analysisutil.IsMethod(fn, "net/http", "Request", "Clone"):
			return len(e.Args) > 0 && detached(e.Args[0])
		}
		// Any other call that makes a request (a helper, a function value,
		// a literal called in place).
		return other != nil && other(e, depth)
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok {
			return false
		}
		list := r.reqAssigns[v]
		if len(list) == 0 {
			return false // a parameter, or a value the analysis did not see
		}
		for _, val := range list {
			if val == nil || !r.requestIs(val, depth+1, detached, other) {
				return false
			}
		}
		return true
	}
	return false
}

// givenNoContext reports whether a value the call makes can hold no
// caller's context: the function around the call has no context in reach,
// and every context or request the call is given is detached.
func (r *Result) givenNoContext(call *ast.CallExpr, depth int) bool {
	if f := r.EnclosingPos(call.Pos()); f == nil || f.HasContext() {
		return false
	}
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		if analysisutil.IsContext(t) && !r.Detached(arg) || analysisutil.IsHTTPRequest(t) && !r.detachedRequest(arg, depth+1) {
			return false
		}
	}
	return true
}

// LoopChecksCancel reports whether a for or range loop tests for the end
// of a context in its condition or body (ChecksCancel), so it stops on
// cancellation by itself.
func (r *Result) LoopChecksCancel(loop ast.Stmt) bool {
	switch l := loop.(type) {
	case *ast.ForStmt:
		return (l.Cond != nil && r.ChecksCancel(l.Cond)) || r.ChecksCancel(l.Body)
	case *ast.RangeStmt:
		return r.ChecksCancel(l.Body)
	}
	return false
}

// InUncheckedRetryLoop reports whether the node at cur sits, within its
// function, inside a loop that retries the same work
// (analysisutil.IsRetryLoop) and never tests a context: retrycancel's
// loops, which keep going after cancellation.
func (r *Result) InUncheckedRetryLoop(cur inspector.Cursor) bool {
	for loop := range analysisutil.EnclosingLoops(cur) {
		if analysisutil.IsRetryLoop(r.info, loop) && !r.LoopChecksCancel(loop) {
			return true
		}
	}
	return false
}
