package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// ReturnsCtxErr is an object fact on a *types.Func whose error result is,
// on every return, nil or the Err of its context parameter Param
// (context.Cause of it when Cause is set), and is each on some return: a
// sleep or wait helper
// (`sleepCtx(ctx, d)` returning ctx.Err() when ctx ends first). Testing
// its error against nil is testing that context's end.
type ReturnsCtxErr struct {
	Param int
	Cause bool
}

// AFact marks ReturnsCtxErr as an analysis fact.
func (*ReturnsCtxErr) AFact() {}

func (*ReturnsCtxErr) String() string { return "returnsCtxErr" }

// returnsCtxErr returns the fact of fn, from this package's functions or
// an import.
func (r *Result) returnsCtxErr(fn *types.Func) *ReturnsCtxErr {
	if fn == nil {
		return nil
	}
	if fn.Pkg() == r.pass.Pkg {
		return r.ctxErrFuncs[fn.Origin()]
	}
	f := new(ReturnsCtxErr)
	if r.pass.ImportObjectFact(fn.Origin(), f) {
		return f
	}
	return nil
}

// computeCtxErrFuncs finds the package's functions whose error result is
// always nil or a context parameter's Err (or Cause), with returns of
// both.
func (r *Result) computeCtxErrFuncs(pass *analysis.Pass) {
	// Helpers built on helpers: repeat until no function is added.
	for changed := true; changed; {
		changed = false
		for _, f := range r.Funcs {
			if f.Obj == nil || r.ctxErrFuncs[f.Obj] != nil {
				continue
			}
			if fact := r.ctxErrFact(f); fact != nil {
				r.ctxErrFuncs[f.Obj] = fact
				changed = true
			}
		}
	}
	for fn, fact := range r.ctxErrFuncs {
		analysisutil.ExportFuncFact(pass, fn, fact)
	}
}

// ctxErrFact returns the ReturnsCtxErr fact f deserves, or nil.
func (r *Result) ctxErrFact(f *Func) *ReturnsCtxErr {
	{
		idx := analysisutil.ErrorResult(f.Sig)
		if idx < 0 || !analysisutil.TakesContext(f.Sig) {
			return nil
		}
		params := map[*types.Var]int{}
		for i := range f.Sig.Params().Len() {
			if p := f.Sig.Params().At(i); analysisutil.IsContext(p.Type()) {
				params[p] = i
			}
		}
		param, cause, found, ok, sawNil := -1, false, false, true, false
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if !ok {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.AssignStmt:
				// A context parameter reassigned (ctx, cancel =
				// WithTimeout(ctx, d)) is not the caller's any more.
				for _, l := range n.Lhs {
					if id, isID := ast.Unparen(l).(*ast.Ident); isID {
						if v, isVar := r.info.Uses[id].(*types.Var); isVar {
							if _, isParam := params[v]; isParam {
								ok = false
							}
						}
					}
				}
			case *ast.ReturnStmt:
				if len(n.Results) != f.Sig.Results().Len() {
					ok = false // a bare return or a tuple call
					return false
				}
				e := ast.Unparen(n.Results[idx])
				if isNil(r.info, e) {
					sawNil = true
					return false
				}
				x := r.ctxErrOf(e, true, nil)
				id, isID := ast.Unparen(x).(*ast.Ident)
				if !isID {
					ok = false
					return false
				}
				v, _ := r.info.Uses[id].(*types.Var)
				i, isParam := params[v]
				if !isParam || param >= 0 && param != i {
					ok = false
					return false
				}
				param, found = i, true
				if r.ctxErrOf(e, false, nil) == nil {
					cause = true // context.Cause(ctx)
				}
				return false
			}
			return true
		})
		// Both outcomes: a function that only ever returns ctx.Err() is a
		// stub standing for any context-bound call.
		if ok && found && sawNil {
			return &ReturnsCtxErr{Param: param, Cause: cause}
		}
		return nil
	}
}
