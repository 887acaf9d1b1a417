package detachedctx

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkMakesRoot reports a call, where a caller's context is in reach, of a
// function that takes no context and runs its work under a root context of
// its own (ctxflow's MakesRoot fact, through any chain of context-less
// callees, in this package or another of the module): the work keeps
// running after the caller's deadline passes or it is canceled. Calls of
// APIs with a context-aware form are checkContextless's; functions of other
// modules (the fix is not the reader's), deferred calls, calls in main and
// init, and goroutines started on such a function (their own lifetime) are
// not reported, and a function calling the same helper twice is reported
// once.
func (st *state) checkMakesRoot(cfg Config, cur inspector.Cursor, call *ast.CallExpr) (d analysis.Diagnostic, root string, ok bool) {
	info := st.pass.TypesInfo
	fn := analysisutil.Callee(info, call)
	m := st.res.MakesRoot(fn)
	if m == nil {
		return analysis.Diagnostic{}, "", false
	}
	if !cfg.IncludeTests && strings.HasSuffix(st.pass.Fset.File(call.Pos()).Name(), "_test.go") {
		return analysis.Diagnostic{}, "", false
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() || st.inMainOrInit(f) || st.inDefer(cur, f) {
		return analysis.Diagnostic{}, "", false
	}
	if f.Obj != nil && f.Obj.Origin() == fn.Origin() {
		return analysis.Diagnostic{}, "", false
	}
	if !st.ownCode(fn) || !st.ownPkg(m.Pkg) {
		// A library's context-less function: its context form, if any, is
		// checkContextless's; adding a parameter is not the reader's to do.
		return analysis.Diagnostic{}, "", false
	}
	if _, ok := cur.Parent().Node().(*ast.GoStmt); ok {
		return analysis.Diagnostic{}, "", false // go f3(): its own lifetime
	}
	if _, _, ok := st.contextForm(call, fn, fn.Type().(*types.Signature)); ok {
		return analysis.Diagnostic{}, "", false // f.Get where f.GetContext exists: checkContextless's
	}
	reach, ok := st.contextInReach(cur, f)
	if !ok || reach.Kind != ctxflow.ParamContext && reach.Kind != ctxflow.RequestContext {
		return analysis.Diagnostic{}, "", false
	}
	// One finding per function and callee: the second call of the same
	// helper cuts off the same context the same way.
	key := rootCall{f.Node, fn.Origin()}
	if st.rootCalls[key] {
		return analysis.Diagnostic{}, "", false
	}
	if st.rootCalls == nil {
		st.rootCalls = make(map[rootCall]bool)
	}
	st.rootCalls[key] = true
	name := fn.Name()
	runs := fmt.Sprintf("%s takes no context and runs its work under %s (%s)", name, m.Root, m.At)
	if len(m.Chain) > 0 {
		runs = fmt.Sprintf("%s takes no context and calls %s, which runs its work under %s (%s)",
			name, strings.Join(m.Chain, ", which calls "), m.Root, m.At)
	}
	return analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("%s: called here with %s in reach, that work keeps running after %s's deadline passes or it is canceled; give %s a context parameter and pass %s",
			runs, reach.Expr, reach.Expr, name, reach.Expr),
	}, m.Pkg + ":" + m.At, true
}

// maxRootSites bounds the related positions of one root's finding.
const maxRootSites = 10

// addRootFinding records d, a checkMakesRoot finding at call of a function
// that reaches the root context made at key. The first
// call in the package that reaches a root context is the finding; later
// calls reaching the same root (the same place in the same callee) are
// related positions of it: one root, one finding, however many callers
// reach it. (Each call could take a context parameter, but the chain
// down to the root is one fix.)
func (st *state) addRootFinding(d analysis.Diagnostic, key string, call *ast.CallExpr) {
	if first := st.rootAt[key]; first != nil {
		if len(first.Related) < maxRootSites {
			first.Related = append(first.Related, analysis.RelatedInformation{
				Pos: call.Pos(), End: call.End(),
				Message: "also called here with a context in reach",
			})
		}
		return
	}
	if st.rootAt == nil {
		st.rootAt = make(map[string]*analysis.Diagnostic)
	}
	st.rootAt[key] = &d
	st.rootFindings = append(st.rootFindings, &d)
}

type rootCall struct {
	f  ast.Node
	fn *types.Func
}

// ownCode reports whether fn belongs to the module being analyzed (when
// the driver says which), so that the fix, a context parameter, is the
// reader's to make.
func (st *state) ownCode(fn *types.Func) bool {
	return fn.Pkg() == nil || st.ownPkg(fn.Pkg().Path())
}

// ownPkg reports whether the package path p is in the module being
// analyzed (always, when the driver does not say which module that is).
func (st *state) ownPkg(p string) bool {
	m := st.pass.Module
	if m == nil || m.Path == "" || p == "" {
		return true
	}
	return p == m.Path || strings.HasPrefix(p, m.Path+"/")
}
