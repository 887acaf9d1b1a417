package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// AddsValues is an object fact on a *types.Func whose context result is,
// on every return, its context parameter Param with values added:
// the parameter itself, context.WithValue of such a context, or the result
// of another such function given one (`xlog.NewContext(ctx, l)`,
// `metadata.NewOutgoingContext(ctx, md)`). Its result ends exactly when
// the parameter does: given a context that cannot end, it cannot either.
type AddsValues struct{ Param int }

// AFact marks AddsValues as an analysis fact.
func (*AddsValues) AFact() {}

func (*AddsValues) String() string { return "addsValues" }

// addsValuesParam returns the index of fn's context parameter when fn has
// the AddsValues fact, or -1.
func (r *Result) addsValuesParam(fn *types.Func) int {
	if fn == nil {
		return -1
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		if i, ok := r.valueCtxs[fn]; ok {
			return i
		}
		return -1
	}
	var f AddsValues
	if r.pass.ImportObjectFact(fn, &f) {
		return f.Param
	}
	if fn.Pkg() != nil {
		return knowledge.ValueContext(fn.Pkg().Path(), analysisutil.RecvTypeName(fn), fn.Name())
	}
	return -1
}

// computeValueContexts finds the package's functions with the AddsValues
// fact, to a fixed point over calls between them, and exports the facts.
func (r *Result) computeValueContexts(pass *analysis.Pass) {
	type cand struct {
		f      *Func
		param  *types.Var
		pi     int
		result int
		rets   []ast.Expr
	}
	var cands []cand
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil {
			continue
		}
		pi, ri := -1, -1
		params, results := f.Sig.Params(), f.Sig.Results()
		for i := range params.Len() {
			if analysisutil.IsContext(params.At(i).Type()) {
				if pi >= 0 {
					pi = -2 // two contexts: which one is not worked out
					break
				}
				pi = i
			}
		}
		for i := range results.Len() {
			if analysisutil.IsContext(results.At(i).Type()) && ri < 0 {
				ri = i
			}
		}
		if pi < 0 || ri < 0 || results.At(ri).Name() != "" {
			continue
		}
		var rets []ast.Expr
		ok := true
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if len(n.Results) != results.Len() {
					ok = false
				} else {
					rets = append(rets, n.Results[ri])
				}
			}
			return ok
		})
		if ok && len(rets) > 0 {
			cands = append(cands, cand{f, params.At(pi), pi, ri, rets})
		}
	}
	if len(cands) == 0 {
		return
	}
	// Greatest fixed point: assume every candidate, drop those with a
	// return that is not the parameter with values added.
	r.valueCtxs = make(map[*types.Func]int, len(cands))
	for _, c := range cands {
		r.valueCtxs[c.f.Obj] = c.pi
	}
	var derived func(e ast.Expr, p *types.Var, depth int) bool
	derived = func(e ast.Expr, p *types.Var, depth int) bool {
		if depth > 8 {
			return false
		}
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			return r.info.Uses[e] == p && !r.reassigned(p)
		case *ast.CallExpr:
			fn := analysisutil.Callee(r.info, e)
			if analysisutil.IsFunc(fn, "context", "WithValue") {
				return len(e.Args) > 0 && derived(e.Args[0], p, depth+1)
			}
			if i := r.addsValuesParam(fn); i >= 0 && i < len(e.Args) {
				return derived(e.Args[i], p, depth+1)
			}
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for _, c := range cands {
			if _, still := r.valueCtxs[c.f.Obj]; !still {
				continue
			}
			for _, e := range c.rets {
				if !derived(e, c.param, 0) {
					delete(r.valueCtxs, c.f.Obj)
					changed = true
					break
				}
			}
		}
	}
	for fn, i := range r.valueCtxs {
		analysisutil.ExportFuncFact(pass, fn, &AddsValues{Param: i})
	}
}

// reassigned reports whether the package assigns to v anywhere after its
// declaration (recorded context assignments).
func (r *Result) reassigned(v *types.Var) bool {
	return len(r.ctxAssigns[v]) > 0
}
