package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// ReturnsRoot is an object fact on a *types.Func that takes no context and
// has none in reach, and whose context result is, on every return, a root:
// context.Background() or TODO(), WithoutCancel, or values added to one
// (context.WithValue(context.Background(), k, v)). Its result has no
// parent to inherit a deadline or cancellation from: called where a
// caller's context is in reach, it is context.Background() in disguise.
type ReturnsRoot struct{}

// AFact marks ReturnsRoot as an analysis fact.
func (*ReturnsRoot) AFact() {}

func (*ReturnsRoot) String() string { return "returnsRoot" }

// ReturnsRoot reports whether fn has the ReturnsRoot fact.
func (r *Result) ReturnsRoot(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		return r.rootCtxs[fn]
	}
	return r.pass.ImportObjectFact(fn, new(ReturnsRoot))
}

// computeRootContexts finds the package's functions with the ReturnsRoot
// fact, to a fixed point over calls between them, and exports the facts.
func (r *Result) computeRootContexts(pass *analysis.Pass) {
	type cand struct {
		f    *Func
		idx  int
		rets []*ast.ReturnStmt
	}
	var cands []cand
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil || f.HasContext() || analysisutil.TakesContext(f.Sig) {
			continue
		}
		res := f.Sig.Results()
		idx := -1
		for i := range res.Len() {
			if analysisutil.IsContext(res.At(i).Type()) {
				idx = i
				break
			}
		}
		if idx < 0 || res.At(idx).Name() != "" {
			continue // no context result, or a named one set anywhere
		}
		var rets []*ast.ReturnStmt
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				rets = append(rets, n)
			}
			return true
		})
		if len(rets) > 0 {
			cands = append(cands, cand{f, idx, rets})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, c := range cands {
			if r.rootCtxs[c.f.Obj] {
				continue
			}
			all := true
			for _, ret := range c.rets {
				if len(ret.Results) != c.f.Sig.Results().Len() || !r.Detached(ret.Results[c.idx]) {
					all = false
					break
				}
			}
			if all {
				r.rootCtxs[c.f.Obj] = true
				changed = true
			}
		}
	}
	for fn := range r.rootCtxs {
		analysisutil.ExportFuncFact(pass, fn, new(ReturnsRoot))
	}
}
