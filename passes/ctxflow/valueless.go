package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// ValueLess reports whether the context c in reach carries no values: it
// is a parameter of an unexported function of this package whose every
// static call passes a context derived from context.Background() or TODO()
// by WithCancel, WithTimeout, WithDeadline (and their Cause forms) or
// WithoutCancel only, never WithValue; or a local only ever assigned such
// contexts. A log call given Background() in its place loses nothing.
func (r *Result) ValueLess(c Context) bool {
	if c.Kind != ParamContext {
		return false
	}
	v, ok := c.Obj.(*types.Var)
	if !ok {
		return false
	}
	return r.paramValueLess(v, 0)
}

func (r *Result) paramValueLess(v *types.Var, depth int) bool {
	if depth > 4 {
		return false
	}
	f, idx := r.ParamOf(v)
	if f == nil || f.Obj.Exported() {
		return false
	}
	calls, escapes := r.CallsOf(f.Obj)
	if len(calls) == 0 || escapes && f.Sig.Recv() == nil {
		return false
	}
	if f.Sig.Recv() != nil && r.calls.escapes[f.Obj.Origin()] {
		return false // a method value: callers unseen
	}
	for _, call := range calls {
		if idx >= len(call.Args) || !r.valueLessExpr(call.Args[idx], depth+1) {
			return false
		}
	}
	return true
}

func (r *Result) valueLessExpr(e ast.Expr, depth int) bool {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, ok := r.info.ObjectOf(id).(*types.Var); ok && len(r.ctxAssigns[v]) == 0 {
			return r.paramValueLess(v, depth+1) // a parameter: what its callers pass
		}
	}
	return r.ctxIs(e, r.valueLessValue, depth)
}

// valueLessValue reports whether call makes a context without values: a
// root, or a cancel, deadline or WithoutCancel of one without values.
func (r *Result) valueLessValue(call *ast.CallExpr, depth int) bool {
	fn := analysisutil.Callee(r.info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
		return false
	}
	switch fn.Name() {
	case "Background", "TODO":
		return true
	case "WithCancel", "WithTimeout", "WithDeadline", "WithCancelCause", "WithTimeoutCause", "WithDeadlineCause", "WithoutCancel":
		return len(call.Args) > 0 && r.valueLessExpr(call.Args[0], depth+1)
	}
	return false
}
