package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// DropsCancel is an object fact on a *types.Func whose context parameters
// never bound anything it does: each is named _ or used only as the
// argument of context.WithoutCancel, or passed on only to parameters of
// functions with this fact. What the function keeps of its context is its
// values (go-oidc's VerifierContext stores `context.WithoutCancel(ctx)` in
// the key set it builds). Giving it the caller's context in place of
// Background() propagates no deadline or cancellation.
type DropsCancel struct{}

// AFact marks DropsCancel as an analysis fact.
func (*DropsCancel) AFact() {}

func (*DropsCancel) String() string { return "dropsCancel" }

// DropsCancel reports whether fn has the DropsCancel fact.
func (r *Result) DropsCancel(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		return r.droppers[fn]
	}
	return r.pass.ImportObjectFact(fn, new(DropsCancel))
}

// computeDroppers finds the package's functions with the DropsCancel fact,
// to a fixed point over the calls among them, and exports it.
func (r *Result) computeDroppers(pass *analysis.Pass) {
	type cand struct {
		f      *Func
		params map[types.Object]bool
	}
	var cands []cand
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil {
			continue
		}
		if params := contextParams(f.Sig); len(params) > 0 {
			cands = append(cands, cand{f, params})
		}
	}
	if len(cands) == 0 {
		return
	}
	// drops reports whether every use of the parameters in f's body drops
	// the cancellation, given the functions already found.
	drops := func(c cand) bool {
		ok := true
		var stack []ast.Node
		ast.Inspect(c.f.Body, func(n ast.Node) bool {
			if !ok {
				return false
			}
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			id, isID := n.(*ast.Ident)
			if !isID || !c.params[r.info.Uses[id]] {
				return true
			}
			call, isCall := stack[len(stack)-2].(*ast.CallExpr)
			if !isCall || ast.Unparen(call.Fun) == ast.Expr(id) {
				ok = false
				return false
			}
			fn := analysisutil.Callee(r.info, call)
			switch {
			case analysisutil.IsFunc(fn, "context", "WithoutCancel"):
			case fn != nil && fn.Origin() != c.f.Obj && r.DropsCancel(fn):
			default:
				ok = false
			}
			return ok
		})
		return ok
	}
	for changed := true; changed; {
		changed = false
		for _, c := range cands {
			if !r.droppers[c.f.Obj] && drops(c) {
				r.droppers[c.f.Obj] = true
				changed = true
			}
		}
	}
	for fn := range r.droppers {
		analysisutil.ExportFuncFact(pass, fn, new(DropsCancel))
	}
}
