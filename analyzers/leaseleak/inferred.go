package leaseleak

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// inferredVerbs are the release methods from which a lease is inferred, by
// the participle of releasing for messages.
var inferredVerbs = []struct{ method, verb, does string }{
	{"Close", "closed", "closes"}, {"End", "ended", "ends"}, {"Finish", "finished", "finishes"}, {"Release", "released", "releases"},
}

// inferred returns the acquisition of a value that no table or fact knows
// as a lease but that the function itself treats as one: a local assigned
// from call whose type has a release method (Close, End, Finish, Release;
// taking nothing, an error or options: span.End(err)) that the function
// calls on it somewhere, directly
// or in a deferred or other literal. Releasing it on one path says it must
// be released on every path; the paths that do not are leaks like those of
// a known kind (a span ended on success only, a session closed on one
// branch).
func (f *function) inferred(call *ast.CallExpr, lhs []ast.Expr) *ownership.Acquisition {
	fn := analysisutil.Callee(f.info(), call)
	if fn == nil || len(lhs) == 0 {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() != len(lhs) || f.wrapsMemory(call) {
		return nil
	}
	wrapsResource := f.wrapsResource(call) && !f.releasesWrapped(call)
	if f.parentReleasedFirst(call) {
		// sess, err := client.NewSession() after defer client.Close():
		// closing the client ends what it made.
		return nil
	}
	for idx, e := range lhs {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		v, ok := f.info().ObjectOf(id).(*types.Var)
		if !ok || v.Pos() < f.ftype.Pos() || v.Pos() >= f.body.End() || analysisutil.IsError(v.Type()) {
			continue
		}
		if isStream(v.Type()) && !wrapsResource {
			// An encoder, a chunked or compressing writer, a pipe of a
			// command: its Close finishes a stream something else owns.
			// It is a lease only when it takes over a connection or a file
			// (tls.Client(conn)) that the function does not release
			// itself (gzip.NewWriter(f) beside defer f.Close()).
			continue
		}
		for _, rv := range inferredVerbs {
			m, _, _ := types.LookupFieldOrMethod(v.Type(), true, v.Pkg(), rv.method)
			mf, ok := m.(*types.Func)
			if !ok || !releaseParams(mf) || !releaseResults(mf) || !f.callsMethod(v, rv.method) || f.derivedEscapes(v) || f.assignedElsewhere(v, id) {
				continue
			}
			// A release that takes arguments (span.End(err), a
			// status code) gets no fix: what to pass is the function's
			// to say.
			fix := ""
			if mf.Type().(*types.Signature).Params().Len() == 0 {
				fix = "%s." + rv.method + "()"
			}
			kind := &ownership.Kind{
				ID: "inferred", Noun: typeNoun(v.Type()), Verb: rv.verb, Release: []string{rv.method},
				Fix:         fix,
				NilOnError:  true,
				Consequence: "whatever it holds is not given back on that path, though the function " + rv.does + " it elsewhere",
			}
			return &ownership.Acquisition{Kind: kind, Index: idx, Err: ownership.ErrResult(sig, idx), Name: ownership.FuncName(fn), Fn: fn}
		}
	}
	return nil
}

// wrapsMemory reports whether call is given an in-memory buffer or reader
// (gzip.NewWriter(&buf)): the value it makes writes to memory, and its
// Close finishes the stream rather than releasing anything.
func (f *function) wrapsMemory(call *ast.CallExpr) bool {
	for _, arg := range call.Args {
		t := f.info().TypeOf(arg)
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if analysisutil.IsNamed(t, "bytes", "Buffer") || analysisutil.IsNamed(t, "bytes", "Reader") ||
			analysisutil.IsNamed(t, "strings", "Builder") || analysisutil.IsNamed(t, "strings", "Reader") {
			return true
		}
	}
	return false
}

// isStream reports whether t reads or writes a byte stream (io.Reader or
// io.Writer).
func isStream(t types.Type) bool {
	return analysisutil.HasMethod(t, "Read") || analysisutil.HasMethod(t, "Write")
}

// wrapsResource reports whether call is given a connection or a file (a
// value with Close and either SetDeadline or Fd): the value it makes takes
// that resource over.
func (f *function) wrapsResource(call *ast.CallExpr) bool {
	for _, arg := range call.Args {
		if isResource(f.info().TypeOf(arg)) {
			return true
		}
	}
	return false
}

// isResource reports whether t is a connection or a file: a value with
// Close and either SetDeadline or Fd.
func isResource(t types.Type) bool {
	return t != nil && analysisutil.HasMethod(t, "Close") && (analysisutil.HasMethod(t, "SetDeadline") || analysisutil.HasMethod(t, "Fd"))
}

// releaseParams reports whether m takes what a release of the whole value
// takes: nothing, the outcome to record (span.End(err)), or options (a
// variadic list). A Release(n) gives back part of a count (a semaphore's
// weight), and a Close(ctx) sits beside an Abort(ctx) that the failure
// paths call instead (a multipart upload): neither says the value is a
// lease to close on every path.
func releaseParams(m *types.Func) bool {
	sig := m.Type().(*types.Signature)
	for i := range sig.Params().Len() {
		if sig.Variadic() && i == sig.Params().Len()-1 {
			continue
		}
		if !analysisutil.IsErrorInterface(sig.Params().At(i).Type()) {
			return false
		}
	}
	return true
}

// releaseResults reports whether m returns what a release returns:
// nothing, or only an error. A Finish that returns the bytes it produced
// (pkcs7's SignedData.Finish) serializes; it releases nothing.
func releaseResults(m *types.Func) bool {
	res := m.Type().(*types.Signature).Results()
	return res.Len() == 0 || res.Len() == 1 && analysisutil.IsErrorInterface(res.At(0).Type())
}

// parentReleasedFirst reports whether call is a method of a variable p
// whose release the function defers before call (defer client.Close();
// ...; sess, err := client.NewSession()): the parent's release, run on
// every return, ends what it made.
func (f *function) parentReleasedFirst(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pid, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return false
	}
	p, ok := f.info().Uses[pid].(*types.Var)
	if !ok {
		return false
	}
	// A defer among the body's own statements, before the call, runs on
	// every return after it.
	for _, st := range f.body.List {
		n, ok := st.(*ast.DeferStmt)
		if !ok || n.Pos() >= call.Pos() {
			continue
		}
		if ds, ok := ast.Unparen(n.Call.Fun).(*ast.SelectorExpr); ok {
			if id, ok := ast.Unparen(ds.X).(*ast.Ident); ok && f.info().Uses[id] == p && ownership.Generic().Releases(ds.Sel.Name) {
				return true
			}
		}
	}
	return false
}

// releasesWrapped reports whether the function itself releases or hands
// on a connection or file that call wraps (gzip.NewWriter(f) beside defer
// f.Close()): the function owns the resource, and the wrapper's Close only
// finishes its stream (gzip.Writer's Close does not close f).
func (f *function) releasesWrapped(call *ast.CallExpr) bool {
	for _, arg := range call.Args {
		if !isResource(f.info().TypeOf(arg)) {
			continue
		}
		id, ok := ast.Unparen(arg).(*ast.Ident)
		if !ok {
			continue
		}
		v, ok := f.info().Uses[id].(*types.Var)
		if !ok {
			continue
		}
		objs := map[types.Object]bool{v: true}
		uses := 0
		ast.Inspect(f.body, func(n ast.Node) bool {
			if st, ok := n.(ast.Stmt); ok {
				if _, block := st.(*ast.BlockStmt); !block && !containsCall(st, call) && f.s.own.UseOf(st, objs, ownership.Generic()) != ownership.Borrow {
					uses++
				}
			}
			return uses == 0
		})
		if uses > 0 {
			return true
		}
	}
	return false
}

// containsCall reports whether n contains the call c.
func containsCall(n ast.Node, c *ast.CallExpr) bool {
	return n.Pos() <= c.Pos() && c.End() <= n.End()
}

// assignedElsewhere reports whether v is assigned anywhere but at id: the
// release the function makes may be of another value (span :=
// SpanFromContext(ctx) borrowed, then span = tracer.StartSpan(...) ended).
func (f *function) assignedElsewhere(v *types.Var, id *ast.Ident) bool {
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if lid, ok := ast.Unparen(l).(*ast.Ident); ok && lid != id && f.info().ObjectOf(lid) == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// callsMethod reports whether the function calls method name on v
// anywhere in its body, literals included.
func (f *function) callsMethod(v *types.Var, name string) bool {
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if found {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == name {
				if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && f.info().Uses[id] == v {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// derivedEscapes reports whether a value made by a method of v (tx, err :=
// conn.Begin(ctx)) is returned by the function: such a value may own v
// and release it (a transaction that releases its connection on Commit),
// so the paths that return it hand v on.
func (f *function) derivedEscapes(v *types.Var) bool {
	derived := map[types.Object]bool{}
	escapes := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 && f.methodOf(n.Rhs[0], v) {
				for _, l := range n.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok && id.Name != "_" {
						derived[f.info().ObjectOf(id)] = true
					}
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				id, isID := ast.Unparen(r).(*ast.Ident)
				if f.methodOf(r, v) || isID && derived[f.info().Uses[id]] && !analysisutil.IsError(f.info().TypeOf(id)) {
					escapes = true
				}
			}
		}
		return !escapes
	})
	return escapes
}

// methodOf reports whether e calls a method of v.
func (f *function) methodOf(e ast.Expr, v *types.Var) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	return ok && f.info().Uses[id] == v
}

// typeNoun names a value of type t for messages: "trace.Span".
func typeNoun(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if n.Obj().Pkg() != nil {
			return n.Obj().Pkg().Name() + "." + n.Obj().Name()
		}
		return n.Obj().Name()
	}
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
