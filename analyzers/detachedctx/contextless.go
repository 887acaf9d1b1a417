package detachedctx

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkContextless reports a call of an API that takes no context while a
// caller's context (a parameter, or a request's) is in reach, when the API
// has a context-aware form: a method or function of the same receiver or
// package named with a context suffix (QueryContext, DoWithContext, GetCtx)
// that takes a context and then the same parameters and returns the same
// results, or a form the knowledge table names (http.Get and
// NewRequestWithContext, net.Dial and Dialer.DialContext). The call runs under no deadline and no
// cancellation: when the caller gives up, it keeps its connection, process
// or query going.
//
// Not reported: calls with no result (their context would carry values
// only: slog.Info and InfoContext), calls in a deferred statement (cleanup
// runs after the work, when the caller's context may be done), calls in
// main and init, and in _test.go files unless include_tests is set.
func (st *state) checkContextless(cfg Config, cur inspector.Cursor, call *ast.CallExpr) (analysis.Diagnostic, bool) {
	info := st.pass.TypesInfo
	fn := analysisutil.Callee(info, call)
	if fn == nil || fn.Pkg() == nil {
		return analysis.Diagnostic{}, false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() == 0 || analysisutil.TakesContext(sig) {
		return analysis.Diagnostic{}, false
	}
	variant, form, ok := st.contextForm(call, fn, sig)
	if !ok {
		return analysis.Diagnostic{}, false
	}
	if !cfg.IncludeTests && strings.HasSuffix(st.pass.Fset.File(call.Pos()).Name(), "_test.go") {
		return analysis.Diagnostic{}, false
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() || st.inMainOrInit(f) || st.inDefer(cur, f) {
		return analysis.Diagnostic{}, false
	}
	if f.Obj != nil && f.Obj.Name() == variant {
		return analysis.Diagnostic{}, false // the context form calling its compatibility twin
	}
	if st.recontexted(cur, call) {
		// req, _ := http.NewRequest(...); req = req.WithContext(ctx): the
		// context is attached before the value does its work.
		return analysis.Diagnostic{}, false
	}
	if sig.Results().Len() > 0 && analysisutil.IsHTTPRequest(sig.Results().At(0).Type()) && st.neverSent(cur, call) {
		// req, _ := http.NewRequest(...); req.Write(conn): a request
		// written by hand to a connection the function manages carries
		// no context anywhere; only a client or transport reads it.
		return analysis.Diagnostic{}, false
	}
	if !form.CallOnly && st.resultKept(cur, call) {
		// c.cmd = exec.Command(...): the value belongs to a longer-lived
		// owner (a subprocess the object manages), not to this call.
		return analysis.Diagnostic{}, false
	}
	reach, ok := st.contextInReach(cur, f)
	if !ok || reach.Kind != ctxflow.ParamContext && reach.Kind != ctxflow.RequestContext {
		return analysis.Diagnostic{}, false
	}
	name := types.ExprString(call.Fun)
	advice := form.Advice
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && form.Args == "%s" {
		advice = types.ExprString(sel.X) + "." + form.Rename
	}
	d := analysis.Diagnostic{
		Pos: call.Pos(), End: call.Fun.End(),
		Message: fmt.Sprintf("%s takes no context although %s is in reach: it ignores %s's deadline and cancellation and keeps running after the caller has given up; use %s",
			name, reach.Expr, reach.Expr, advice),
	}
	if form.Rename != "" && st.exprResolves(reach, call.Pos()) {
		d.SuggestedFixes = st.contextFormFix(call, reach, form)
	}
	return d, true
}

// contextForm returns the name of fn's context-aware form and how to call
// it: the mechanical form (same receiver or package, name plus a context
// suffix, the context then fn's parameters), or the knowledge table's.
func (st *state) contextForm(call *ast.CallExpr, fn *types.Func, sig *types.Signature) (string, knowledge.ContextForm, bool) {
	if form, ok := knowledge.Contextless(fn.Pkg().Path(), analysisutil.RecvTypeName(fn), fn.Name()); ok {
		return form.Rename, form, true
	}
	for _, suffix := range knowledge.ContextSuffixes {
		name := fn.Name() + suffix
		var obj types.Object
		if sig.Recv() != nil {
			sel, ok := st.pass.TypesInfo.Selections[ast.Unparen(call.Fun).(*ast.SelectorExpr)]
			if !ok {
				continue
			}
			obj, _, _ = types.LookupFieldOrMethod(sel.Recv(), true, fn.Pkg(), name)
		} else {
			obj = fn.Pkg().Scope().Lookup(name)
		}
		v, ok := obj.(*types.Func)
		if !ok || !contextFirst(v.Type().(*types.Signature), sig) {
			continue
		}
		if st.res.DropsCancel(v) {
			// VerifierContext(ctx, ...) keeps only context.WithoutCancel(ctx):
			// the caller's context would bound nothing there.
			continue
		}
		return name, knowledge.ContextForm{Advice: name, Rename: name, Args: "%s"}, true
	}
	return "", knowledge.ContextForm{}, false
}

// contextFirst reports whether v takes a context and then exactly the
// parameters of f, and returns exactly f's results: the same operation
// under a context. A method that only shares the name and the parameters
// (zerolog's Logger.With, which builds a child logger, beside WithContext,
// which stores the logger in a context) is another operation, and
// renaming the call would not compile.
func contextFirst(v, f *types.Signature) bool {
	vp, fp := v.Params(), f.Params()
	if vp.Len() != fp.Len()+1 || v.Variadic() != f.Variadic() || !analysisutil.IsContext(vp.At(0).Type()) {
		return false
	}
	vr, fr := v.Results(), f.Results()
	if vr.Len() != fr.Len() {
		return false
	}
	for i := range fr.Len() {
		if !types.Identical(vr.At(i).Type(), fr.At(i).Type()) {
			return false
		}
	}
	for i := range fp.Len() {
		if !types.Identical(vp.At(i+1).Type(), fp.At(i).Type()) {
			return false
		}
	}
	return true
}

// contextFormFix renames the call to its context form and puts the
// context first.
func (st *state) contextFormFix(call *ast.CallExpr, reach ctxflow.Context, form knowledge.ContextForm) []analysis.SuggestedFix {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		id = fun.Sel
	case *ast.Ident:
		id = fun
	default:
		return nil
	}
	var edit analysis.TextEdit
	switch {
	case form.Args == "%s":
		// The same arguments after the context: insert it.
		text := reach.Expr
		if len(call.Args) > 0 {
			text += ", "
		}
		edit = analysis.TextEdit{Pos: call.Lparen + 1, End: call.Lparen + 1, NewText: []byte(text)}
	case len(call.Args) == 0 && !strings.Contains(form.Args, "%s"):
		edit = analysis.TextEdit{Pos: call.Lparen + 1, End: call.Rparen, NewText: []byte(reach.Expr + ", " + form.Args)}
	default:
		return nil
	}
	return []analysis.SuggestedFix{{
		Message: fmt.Sprintf("Call %s with %s", form.Rename, reach.Expr),
		TextEdits: []analysis.TextEdit{
			{Pos: id.Pos(), End: id.End(), NewText: []byte(form.Rename)},
			edit,
		},
	}}
}

// inMainOrInit reports whether f is, or is a literal inside, main.main or
// an init function: their contexts are the process's.
func (st *state) inMainOrInit(f *ctxflow.Func) bool {
	root := f
	for root.Parent != nil {
		root = root.Parent
	}
	return root.Obj != nil && root.Sig.Recv() == nil &&
		(root.Obj.Name() == "init" || root.Obj.Name() == "main" && st.pass.Pkg.Name() == "main")
}

// resultKept reports whether the value call makes outlives the function: it
// is an object (see isObject) stored in a field, an element, a composite or
// a package variable, or a local holding it is (c.cmd = cmd).
func (st *state) resultKept(cur inspector.Cursor, call *ast.CallExpr) bool {
	info := st.pass.TypesInfo
	switch p := cur.Parent().Node().(type) {
	case *ast.CompositeLit, *ast.KeyValueExpr:
		return isObject(info.TypeOf(call))
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			id := identOf(l)
			if id == nil {
				if isObject(info.TypeOf(l)) {
					return true // an object stored in a field or an element
				}
				continue
			}
			v, ok := info.ObjectOf(id).(*types.Var)
			if !ok || analysisutil.IsError(v.Type()) || !isObject(v.Type()) {
				continue // data the call computed: its work is done
			}
			if v.Parent() == v.Pkg().Scope() || st.varStored(v, cur, false) {
				return true
			}
		}
	}
	return false
}

// neverSent reports whether the request call makes, assigned to a local,
// is used only through its own methods and fields (req.Header.Set,
// req.Write(conn)): never handed to a call (Client.Do, RoundTrip, a
// helper; http.ReadResponse and httputil.DumpRequest read its fields
// only), returned, stored or copied, so no client ever reads its context.
func (st *state) neverSent(cur inspector.Cursor, call *ast.CallExpr) bool {
	info := st.pass.TypesInfo
	v := st.assignedTo(cur)
	if v == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	f := st.res.Enclosing(cur)
	if f == nil {
		return false
	}
	fcur, ok := analysisutil.FindNode(st.ins.Root(), f.Node)
	if !ok {
		return false
	}
	for c := range fcur.Preorder((*ast.Ident)(nil)) {
		if info.Uses[c.Node().(*ast.Ident)] != v {
			continue
		}
		if call, ok := c.Parent().Node().(*ast.CallExpr); ok && call.Fun != c.Node() &&
			(analysisutil.IsCallToFunc(info, call, "net/http", "ReadResponse") || analysisutil.IsCallToFunc(info, call, "net/http/httputil", "DumpRequest")) {
			continue // reads the request's fields, never its context
		}
		sel, ok := c.Parent().Node().(*ast.SelectorExpr)
		if !ok || sel.X != c.Node() {
			return false // an argument, a result, a copy
		}
		if m, ok := info.Selections[sel]; ok && m.Kind() == types.MethodVal && m.Obj().Name() == "WithContext" {
			return false // recontexted, judged elsewhere
		}
		if call, ok := c.Parent().Parent().Node().(*ast.CallExpr); ok && call.Fun != ast.Expr(sel) {
			return false // a method value handed on
		}
	}
	return true
}

// isObject reports whether t is an object with behaviour of its own (a
// pointer to a named type with methods, or an interface): a subprocess, a
// connection, a client the owner keeps using. Maps, slices and plain values
// are data: the call that made them has done its work.
func isObject(t types.Type) bool {
	if t == nil {
		return false
	}
	if types.IsInterface(t) {
		return true
	}
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	return ok && types.NewMethodSet(p).Len() > 0 && n.Obj() != nil
}

// assignedTo returns the local variable the call at cur is assigned to,
// first on the left of `v, ... := call(...)`, or nil.
func (st *state) assignedTo(cur inspector.Cursor) *types.Var {
	as, ok := cur.Parent().Node().(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
		return nil
	}
	id := identOf(as.Lhs[0])
	if id == nil {
		return nil
	}
	v, _ := st.pass.TypesInfo.ObjectOf(id).(*types.Var)
	return v
}

// recontexted reports whether the value call makes is assigned to a local
// that the function later gives a context through one of its methods (a
// method taking a context and returning the value's type: req.WithContext,
// req.Clone).
func (st *state) recontexted(cur inspector.Cursor, call *ast.CallExpr) bool {
	info := st.pass.TypesInfo
	v := st.assignedTo(cur)
	if v == nil {
		return false
	}
	f := st.res.Enclosing(cur)
	if f == nil {
		return false
	}
	found := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok || identOf(sel.X) == nil || info.Uses[identOf(sel.X)] != v {
			return true
		}
		takesCtx := false
		for _, arg := range c.Args {
			if analysisutil.IsContext(info.TypeOf(arg)) {
				takesCtx = true
			}
		}
		if takesCtx && types.Identical(info.TypeOf(c), v.Type()) {
			found = true
		}
		return !found
	})
	return found
}
