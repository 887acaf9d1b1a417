package retrycancel

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
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

// sleeps reports whether fn is known to sleep uninterruptibly.
func (st *state) sleeps(fn *types.Func) bool {
	if fn.Pkg() == st.pass.Pkg {
		return st.sleepers[fn]
	}
	return st.pass.ImportObjectFact(fn.Origin(), new(Sleeps))
}

// computeSleepers finds the package's context-less sleep helpers.
func (st *state) computeSleepers() {
	for _, f := range st.res.Funcs {
		if f.Obj == nil || analysisutil.TakesContext(f.Sig) {
			continue
		}
		// A backoff helper is short and ends with its sleep.
		list := f.Body.List
		found := false
		if n := len(list); n > 0 && n <= 3 {
			if es, ok := list[n-1].(*ast.ExprStmt); ok {
				if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && analysisutil.IsCallToFunc(st.info, call, "time", "Sleep") {
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
			st.sleepers[f.Obj] = true
			analysisutil.ExportFuncFact(st.pass, f.Obj, new(Sleeps))
		}
	}
}

// checksContext reports whether fn is known to check its context.
func (st *state) checksContext(fn *types.Func) bool {
	if st.checks[fn] {
		return true
	}
	if fn.Pkg() == st.pass.Pkg {
		return false
	}
	return st.pass.ImportObjectFact(fn.Origin(), new(ChecksContext))
}

// computeFacts finds the package's functions that check a context
// parameter, to a fixed point over calls between them, and exports facts.
func (st *state) computeFacts() {
	type cand struct {
		f      *ctxflow.Func
		params map[types.Object]bool
	}
	var cands []cand
	for _, f := range st.res.Funcs {
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
			if st.checks[c.f.Obj] || !st.bodyChecks(c.f.Body, c.params) {
				continue
			}
			st.checks[c.f.Obj] = true
			changed = true
		}
	}
	// Export only what other packages consume: helpers that answer with a
	// bool. The others stay in st.checks for calls within the package.
	for fn := range st.checks {
		if returnsBool(fn) {
			analysisutil.ExportFuncFact(st.pass, fn, new(ChecksContext))
		}
	}
}

// bodyChecks reports whether body observes one of the context params.
func (st *state) bodyChecks(body *ast.BlockStmt, params map[types.Object]bool) bool {
	isParam := func(e ast.Expr) bool {
		obj := analysisutil.ObjectOfIdent(st.info, e)
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
		fn := analysisutil.Callee(st.info, call)
		if fn == nil {
			return true
		}
		switch {
		case analysisutil.IsMethod(fn, "context", "Context", "Err"), analysisutil.IsMethod(fn, "context", "Context", "Done"):
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isParam(sel.X) {
				found = true
			}
		case analysisutil.IsFunc(fn, "context", "Cause"), st.checksContext(fn):
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
