package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// StoresContext is an object fact on a *types.Func whose context
// parameters are used only by storing them in a field (a setter:
// `func (r *VM) SetContext(ctx context.Context) { r.ctx = ctx }`). It runs
// no work under the context itself: what it is given becomes the lifetime
// of the object that holds it, as when a constructor's result stores it.
type StoresContext struct{}

// AFact marks StoresContext as an analysis fact.
func (*StoresContext) AFact() {}

func (*StoresContext) String() string { return "storesContext" }

// StoresContext reports whether fn has the StoresContext fact.
func (r *Result) StoresContext(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		return r.storers[fn]
	}
	return r.pass.ImportObjectFact(fn, new(StoresContext))
}

// contextParams returns the context parameters of sig.
func contextParams(sig *types.Signature) map[types.Object]bool {
	params := map[types.Object]bool{}
	for i := range sig.Params().Len() {
		if p := sig.Params().At(i); analysisutil.IsContext(p.Type()) {
			params[p] = true
		}
	}
	return params
}

// computeStorers finds the package's functions with the StoresContext
// fact and exports it.
func (r *Result) computeStorers(pass *analysis.Pass) {
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil {
			continue
		}
		params := contextParams(f.Sig)
		if len(params) == 0 {
			continue
		}
		stores, other := false, false
		var stack []ast.Node
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if other {
				return false
			}
			stack = append(stack, n)
			id, ok := n.(*ast.Ident)
			if !ok || !params[r.info.Uses[id]] {
				return true
			}
			as, ok := stack[len(stack)-2].(*ast.AssignStmt)
			if ok && len(as.Lhs) == len(as.Rhs) {
				for i, rhs := range as.Rhs {
					if rhs == ast.Expr(id) {
						if _, isField := ast.Unparen(as.Lhs[i]).(*ast.SelectorExpr); isField {
							stores = true
							return true
						}
					}
				}
			}
			other = true
			return false
		})
		if stores && !other {
			r.storers[f.Obj] = true
			analysisutil.ExportFuncFact(pass, f.Obj, new(StoresContext))
		}
	}
}
