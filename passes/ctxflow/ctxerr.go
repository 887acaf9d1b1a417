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
// both. rets holds each declared function's own return statements (not
// those of literals in it).
func (r *Result) computeCtxErrFuncs(pass *analysis.Pass, rets map[*Func][]*ast.ReturnStmt) {
	// Helpers built on helpers: repeat until no function is added.
	for changed := true; changed; {
		changed = false
		for f, list := range rets {
			if r.ctxErrFuncs[f.Obj] != nil {
				continue
			}
			if fact := r.ctxErrFact(f, list); fact != nil {
				r.ctxErrFuncs[f.Obj] = fact
				changed = true
			}
		}
	}
	for fn, fact := range r.ctxErrFuncs {
		analysisutil.ExportFuncFact(pass, fn, fact)
	}
}

// ctxErrFact returns the ReturnsCtxErr fact f deserves given its return
// statements, or nil.
func (r *Result) ctxErrFact(f *Func, rets []*ast.ReturnStmt) *ReturnsCtxErr {
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 || !analysisutil.TakesContext(f.Sig) {
		return nil
	}
	params := map[*types.Var]int{}
	for i := range f.Sig.Params().Len() {
		p := f.Sig.Params().At(i)
		if !analysisutil.IsContext(p.Type()) {
			continue
		}
		if len(r.ctxAssigns[p]) > 0 {
			// ctx, cancel = context.WithTimeout(ctx, d): not the
			// caller's context any more.
			return nil
		}
		params[p] = i
	}
	param, cause, sawNil := -1, false, false
	for _, ret := range rets {
		if len(ret.Results) != f.Sig.Results().Len() {
			return nil // a bare return or a tuple call
		}
		e := ast.Unparen(ret.Results[idx])
		if isNil(r.info, e) {
			sawNil = true
			continue
		}
		id, isID := ast.Unparen(r.ctxErrOf(e, true, nil)).(*ast.Ident)
		if !isID {
			return nil
		}
		v, _ := r.info.Uses[id].(*types.Var)
		i, isParam := params[v]
		if !isParam || param >= 0 && param != i {
			return nil
		}
		param = i
		if r.ctxErrOf(e, false, nil) == nil {
			cause = true // context.Cause(ctx)
		}
	}
	// Both outcomes: a function that only ever returns ctx.Err() is a stub
	// standing for any context-bound call.
	if param < 0 || !sawNil {
		return nil
	}
	return &ReturnsCtxErr{Param: param, Cause: cause}
}
