package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// NilErrors is an object fact on a *types.Func with an error result that
// never fails: every return statement gives nil for the error, or returns
// the call of another such function. Stubs are left out: a function given
// a context, or whose body is a lone return. A caller's `if err != nil` after it
// cannot be taken, so no path goes through that branch (an option that
// cannot fail, a constructor that only fills a struct).
type NilErrors struct{}

// AFact marks NilErrors as an analysis fact.
func (*NilErrors) AFact() {}

func (*NilErrors) String() string { return "nilErrors" }

// nilErrorFuncs computes the package's concrete functions whose errors are
// always nil, as a greatest fixed point over the calls among them.
func (r *Result) nilErrorFuncs(decls []*Func) map[*types.Func]bool {
	calls := make(map[*types.Func][]*types.Func)
	for _, f := range decls {
		if f.Obj == nil {
			continue
		}
		idx := analysisutil.ErrorResult(f.Sig)
		if idx < 0 || analysisutil.TakesContext(f.Sig) || len(f.Body.List) <= 1 {
			// A function given a context, or whose body is only its
			// return, is a stub or a no-op implementation standing in
			// for one that can fail: callers keep their error paths.
			continue
		}
		ok, rets := true, 0
		var local []*types.Func
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if !ok {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				rets++
				var e ast.Expr
				switch {
				case len(n.Results) == f.Sig.Results().Len():
					e = n.Results[idx]
				case len(n.Results) == 1:
					e = n.Results[0] // return g(x): g's error
				default:
					ok = false // a bare return of named results
					return false
				}
				e = ast.Unparen(e)
				if isNil(r.info, e) {
					return true
				}
				call, isCall := e.(*ast.CallExpr)
				if !isCall {
					ok = false
					return false
				}
				fn := analysisutil.Callee(r.info, call)
				switch {
				case fn == nil:
					ok = false
				case fn.Pkg() == r.pass.Pkg:
					local = append(local, fn.Origin())
				case !r.pass.ImportObjectFact(fn.Origin(), new(NilErrors)):
					ok = false
				}
			}
			return ok
		})
		if ok && rets > 0 {
			calls[f.Obj] = local
		}
	}
	for changed := true; changed; {
		changed = false
		for fn, deps := range calls {
			for _, d := range deps {
				if _, still := calls[d]; !still {
					delete(calls, fn)
					changed = true
					break
				}
			}
		}
	}
	out := make(map[*types.Func]bool, len(calls))
	for fn := range calls {
		out[fn] = true
	}
	return out
}

// NeverFails reports whether the error result of call is always nil: the
// callee has the NilErrors fact, or it is a parsing function of the
// standard library given a constant it parses (url.Parse of a literal
// URL). A function value or an interface method may fail.
func (r *Result) NeverFails(call *ast.CallExpr) bool {
	fn := analysisutil.Callee(r.info, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	if sig := fn.Type().(*types.Signature); sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
		return false
	}
	if r.nilErrs[fn.Origin()] || fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn.Origin(), new(NilErrors)) {
		return true
	}
	if len(call.Args) == 1 {
		if fails, known := knowledge.ConstantParseFails(fn.Pkg().Path(), fn.Name(), r.info.Types[call.Args[0]].Value); known {
			return !fails
		}
	}
	return false
}
