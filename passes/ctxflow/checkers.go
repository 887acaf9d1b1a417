package ctxflow

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// ChecksContext is an object fact on a *types.Func that returns a bool: the
// function observes the cancellation of a context parameter (it calls its
// Err or Done method, context.Cause on it, or passes it to another function
// of its package that does, or to one with this fact).
// A loop that calls such a helper returning a bool (done(ctx),
// sleepOrDone(ctx, d)) is checking its context.
type ChecksContext struct{}

// AFact marks ChecksContext as an analysis fact.
func (*ChecksContext) AFact() {}

func (*ChecksContext) String() string { return "checksContext" }

// Sleeps is an object fact on a *types.Func that takes no context and whose
// short body (at most three statements) computes a duration and ends with
// time.Sleep: a backoff helper (sleepBackoff(attempt)) that cannot be
// interrupted. A retry loop that calls it is sleeping.
type Sleeps struct{}

// AFact marks Sleeps as an analysis fact.
func (*Sleeps) AFact() {}

func (*Sleeps) String() string { return "sleeps" }

// ChecksContext reports whether fn observes the cancellation of a context
// parameter: a function of this package that does (whatever it returns),
// or an imported one with the ChecksContext fact (exported for helpers
// returning a bool).
func (r *Result) ChecksContext(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	if r.checks[fn] {
		return true
	}
	if fn.Pkg() == r.pass.Pkg {
		return false
	}
	return r.pass.ImportObjectFact(fn.Origin(), new(ChecksContext))
}

// Sleeps reports whether fn is a context-less helper that sleeps
// uninterruptibly (see the Sleeps fact).
func (r *Result) Sleeps(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	if fn.Pkg() == r.pass.Pkg {
		return r.sleepers[fn]
	}
	return r.pass.ImportObjectFact(fn.Origin(), new(Sleeps))
}

// computeSleepers finds the package's context-less sleep helpers.
func (r *Result) computeSleepers(pass *analysis.Pass) {
	for _, f := range r.Funcs {
		if f.Obj == nil || analysisutil.TakesContext(f.Sig) {
			continue
		}
		// A backoff helper is short and ends with its sleep.
		list := f.Body.List
		found := false
		if n := len(list); n > 0 && n <= 3 {
			if es, ok := list[n-1].(*ast.ExprStmt); ok {
				if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && analysisutil.IsCallToFunc(r.info, call, "time", "Sleep") {
					found = true
				}
			}
			// Only the duration is computed before the sleep.
			for _, s := range list[:n-1] {
				switch s.(type) {
				case *ast.AssignStmt, *ast.DeclStmt:
				default:
					found = false
				}
			}
		}
		if found {
			r.sleepers[f.Obj] = true
			analysisutil.ExportFuncFact(pass, f.Obj, new(Sleeps))
		}
	}
}

// computeCheckers finds the package's functions that check a context
// parameter, to a fixed point over calls between them, and exports facts.
func (r *Result) computeCheckers(pass *analysis.Pass) {
	type cand struct {
		f      *Func
		params map[types.Object]bool
	}
	var cands []cand
	for _, f := range r.Funcs {
		if f.Obj == nil {
			continue
		}
		params := make(map[types.Object]bool)
		for i := range f.Sig.Params().Len() {
			if p := f.Sig.Params().At(i); analysisutil.IsContext(p.Type()) && p.Name() != "" && p.Name() != "_" {
				params[p] = true
			}
		}
		if len(params) > 0 {
			cands = append(cands, cand{f, params})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, c := range cands {
			if r.checks[c.f.Obj] || !r.bodyChecks(c.f.Body, c.params) {
				continue
			}
			r.checks[c.f.Obj] = true
			changed = true
		}
	}
	// Export only what other packages consume: helpers that answer with a
	// bool. The others stay in r.checks for calls within the package.
	for fn := range r.checks {
		if ReturnsBool(fn) {
			analysisutil.ExportFuncFact(pass, fn, new(ChecksContext))
		}
	}
}

// bodyChecks reports whether body observes one of the context params.
func (r *Result) bodyChecks(body *ast.BlockStmt, params map[types.Object]bool) bool {
	isParam := func(e ast.Expr) bool {
		obj := analysisutil.ObjectOfIdent(r.info, e)
		return obj != nil && params[obj]
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := analysisutil.Callee(r.info, call)
		if fn == nil {
			return true
		}
		switch {
		case analysisutil.IsMethod(fn, "context", "Context", "Err"), analysisutil.IsMethod(fn, "context", "Context", "Done"):
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isParam(sel.X) {
				found = true
			}
		case analysisutil.IsFunc(fn, "context", "Cause"), r.ChecksContext(fn):
			for _, a := range call.Args {
				if isParam(a) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

// ReturnsBool reports whether fn returns just a bool: a helper like
// done(ctx) or sleepOrDone(ctx, d) whose answer the caller acts on.
func ReturnsBool(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.Results().Len() != 1 {
		return false
	}
	return analysisutil.IsBool(sig.Results().At(0).Type())
}
