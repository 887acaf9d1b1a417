package ctxflow

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// NoCancel is an object fact on a *types.Func that takes a context but uses
// it only for its values (logging, request-scoped settings): it never
// waits on it, derives from it, or passes it to work that could observe its
// end, and it returns real errors of its own. Its error cannot carry the
// context's cancellation, so calls to it are not context-bound.
type NoCancel struct{}

// AFact marks NoCancel as an analysis fact.
func (*NoCancel) AFact() {}

func (*NoCancel) String() string { return "noCancel" }

// valuesOnlyFuncs computes the functions of the package that deserve
// NoCancel, as a greatest fixed point: a function stays a candidate while
// every use of its context parameters is ctx.Value, or an argument of a
// call that returns no error (nor an iterator or channel that yields
// errors, nor a value that keeps one for an Err method, nor a request
// that carries the context: req.WithContext(ctx)), or of a call to a
// candidate or a function
// with the NoCancel fact. A function that never uses its context is a stub
// or a placeholder, and a function with no non-nil error return may be a
// stub too: both stay context-bound. An interface method of the package is
// one when every implementation of it in the package is (interfaceImpls).
func (r *Result) valuesOnlyFuncs(decls []*Func) map[*types.Func]bool {
	type cand struct {
		f     *Func
		calls []*types.Func // local callees given the context
	}
	cands := make(map[*types.Func]*cand)
	for _, f := range decls {
		if f.Obj == nil || analysisutil.ErrorResult(f.Sig) < 0 {
			continue
		}
		params := make(map[types.Object]bool)
		ok := true
		for i := range f.Sig.Params().Len() {
			p := f.Sig.Params().At(i)
			switch {
			case analysisutil.IsHTTPRequest(p.Type()):
				ok = false
			case analysisutil.IsContext(p.Type()):
				params[p] = true
			}
		}
		if !ok || len(params) == 0 || !r.returnsOwnError(f) {
			continue
		}
		c := &cand{f: f}
		uses := 0
		seen := make(map[*ast.Ident]bool) // context arguments already judged
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if !ok {
				return false
			}
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// ctx.Value(k) reads a value; ctx.Err(), Done, Deadline
				// observe the end.
				if id, isID := n.X.(*ast.Ident); isID && params[r.info.Uses[id]] {
					uses++
					if n.Sel.Name != "Value" {
						ok = false
					}
					return false
				}
			case *ast.CallExpr:
				for _, arg := range n.Args {
					id, isID := ast.Unparen(arg).(*ast.Ident)
					if !isID || !params[r.info.Uses[id]] {
						continue
					}
					seen[id] = true
					uses++
					fn := analysisutil.Callee(r.info, n)
					switch {
					case fn == nil || (fn.Pkg() != nil && fn.Pkg().Path() == "context"):
						ok = false // a function value, or a derived context
					case !hasErrorOrContextResult(fn):
						// A value lookup or a log call.
					case r.pass.ImportObjectFact(fn.Origin(), new(NoCancel)):
					case fn.Pkg() == r.pass.Pkg:
						c.calls = append(c.calls, fn)
					default:
						ok = false
					}
				}
			case *ast.Ident:
				if params[r.info.Uses[n]] && !seen[n] {
					ok = false // stored, returned, sent, captured as a value...
				}
			}
			return ok
		})
		if ok && uses > 0 {
			cands[f.Obj] = c
		}
	}
	// An interface method of the package is a candidate whose callees are
	// its implementations in the package: `s.log.Record(ctx, ev)` through
	// an interface whose every implementation only reads values.
	// An implementation that hands its context to an interface method of
	// the package (a middleware delegating to the next handler) grounds
	// nothing: the interface would stand on itself, and the handler the
	// chain ends in may be anyone's.
	ifaces := r.interfaceImpls()
	delegates := func(impl *types.Func) bool {
		c := cands[impl]
		if c == nil {
			return true
		}
		for _, callee := range c.calls {
			if ifaces[callee] != nil {
				return true
			}
		}
		return false
	}
	for m, impls := range ifaces {
		sig := m.Type().(*types.Signature)
		if analysisutil.ErrorResult(sig) < 0 || !analysisutil.TakesContext(sig) || slices.ContainsFunc(impls, delegates) {
			continue
		}
		cands[m] = &cand{calls: impls}
	}
	for changed := true; changed; {
		changed = false
		for fn, c := range cands {
			for _, callee := range c.calls {
				if _, still := cands[callee]; !still {
					delete(cands, fn)
					changed = true
					break
				}
			}
		}
	}
	out := make(map[*types.Func]bool, len(cands))
	for fn := range cands {
		out[fn] = true
	}
	return out
}

// returnsOwnError reports whether f has a return statement (outside
// function literals) whose error result is not nil.
func (r *Result) returnsOwnError(f *Func) bool {
	idx := analysisutil.ErrorResult(f.Sig)
	found := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == f.Sig.Results().Len() && !isNil(r.info, n.Results[idx]) {
				found = true
			} else if len(n.Results) == 1 && f.Sig.Results().Len() > 1 {
				found = true // return g(): a tuple of some other call
			}
		}
		return !found
	})
	return found
}

func hasErrorOrContextResult(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil {
		return true
	}
	for i := range sig.Results().Len() {
		t := sig.Results().At(i).Type()
		if analysisutil.IsError(t) || analysisutil.IsContext(t) || analysisutil.IsHTTPRequest(t) || yieldsError(t) || holdsError(t) {
			return true
		}
	}
	return false
}

// holdsError reports whether t keeps the error of the call that made it
// for later: it has an `Err() error` method (a command or row whose
// failure is read after the call: go-redis's *StringCmd, *sql.Row).
func holdsError(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Err")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && analysisutil.IsError(sig.Results().At(0).Type())
}

// yieldsError reports whether t hands errors over later: an iterator whose
// yield takes an error (iter.Seq2[T, error]), or a channel of errors or of
// structs with an error field (a stream of results). A context given to
// the call that returns it may end the stream with its cancellation.
func yieldsError(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Signature:
		if u.Params().Len() != 1 {
			return false
		}
		yield, ok := u.Params().At(0).Type().Underlying().(*types.Signature)
		if !ok {
			return false
		}
		for i := range yield.Params().Len() {
			if analysisutil.IsError(yield.Params().At(i).Type()) {
				return true
			}
		}
	case *types.Chan:
		elem := u.Elem()
		if analysisutil.IsError(elem) {
			return true
		}
		if st, ok := elem.Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if analysisutil.IsError(st.Field(i).Type()) {
					return true
				}
			}
		}
	}
	return false
}
