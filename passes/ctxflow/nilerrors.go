package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// NilErrors is an object fact on a *types.Func with an error result that
// never fails: every return statement gives nil for the error, or returns
// the call of another such function. Stubs are left out: a function whose
// body is a lone return. A caller's `if err != nil` after it
// cannot be taken, so no path goes through that branch (an option that
// cannot fail, a constructor that only fills a struct).
type NilErrors struct{}

// AFact marks NilErrors as an analysis fact.
func (*NilErrors) AFact() {}

func (*NilErrors) String() string { return "nilErrors" }

// nilErrorFuncs computes the package's concrete functions whose errors are
// always nil, as a greatest fixed point over the calls among them.
func (r *Result) nilErrorFuncs(decls []*Func) map[*types.Func]bool {
	skip := func(f *Func) bool {
		// A function whose body is only its return is a stub or a no-op
		// implementation standing in for one that can fail: callers keep
		// their error paths. (One that does work and logs its failures,
		// given a context or not, returns nil by design.)
		return len(f.Body.List) <= 1
	}
	classify := func(e ast.Expr) (bool, *types.Func) {
		e = ast.Unparen(e)
		if r.nilReturn(e) {
			return true, nil
		}
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false, nil
		}
		fn := analysisutil.Callee(r.info, call)
		switch {
		case fn == nil:
			return false, nil
		case fn.Pkg() == r.pass.Pkg:
			return true, fn.Origin()
		}
		return r.pass.ImportObjectFact(fn.Origin(), new(NilErrors)), nil
	}
	return r.errorFixpoint(decls, skip, classify, func(made, _, rets int) bool {
		// made counts calls of imported never-failing functions here.
		return rets > 0
	})
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
