package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// EndsWith reports whether the context y has ended whenever the context x
// has: y is x (the same access path), or a local every assignment of
// which is a call given x or a context that ends with x
// (`cctx, cancel := context.WithTimeout(x, d)`): a child ends with its
// parent. The converse does not hold: when a child made by WithTimeout
// times out, its parent lives on and its Err() is still nil.
func (r *Result) EndsWith(y, x ast.Expr) bool { return r.endsWith(y, x, 0) }

func (r *Result) endsWith(y, x ast.Expr, depth int) bool {
	if analysisutil.SamePath(r.info, y, x) || r.sameGetter(y, x) {
		return true
	}
	if depth > 8 {
		return false
	}
	id, ok := ast.Unparen(y).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return false
	}
	list := r.ctxAssigns[v]
	if len(list) == 0 {
		return false
	}
	for _, val := range list {
		call, ok := ast.Unparen(val).(*ast.CallExpr)
		if !ok || r.detachedValue(call, 0) {
			return false // context.WithoutCancel(x) does not end with x
		}
		given := false
		for _, arg := range call.Args {
			if analysisutil.IsContext(r.info.TypeOf(arg)) && r.endsWith(arg, x, depth+1) {
				given = true
			}
		}
		if !given {
			return false
		}
	}
	return true
}

// sameGetter reports whether y and x both call the same method without
// arguments on the same access path: r.Context() and r.Context() of one
// request give the same context.
func (r *Result) sameGetter(y, x ast.Expr) bool {
	cy, ok1 := ast.Unparen(y).(*ast.CallExpr)
	cx, ok2 := ast.Unparen(x).(*ast.CallExpr)
	if !ok1 || !ok2 || len(cy.Args) != 0 || len(cx.Args) != 0 {
		return false
	}
	sy, ok1 := ast.Unparen(cy.Fun).(*ast.SelectorExpr)
	sx, ok2 := ast.Unparen(cx.Fun).(*ast.SelectorExpr)
	if !ok1 || !ok2 {
		return false
	}
	fy, fx := analysisutil.Callee(r.info, cy), analysisutil.Callee(r.info, cx)
	return fy != nil && fy == fx && analysisutil.SamePath(r.info, sy.X, sx.X)
}
