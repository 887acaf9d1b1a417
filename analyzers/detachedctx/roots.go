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
// callees, in this package or another): the work keeps running after the
// caller's deadline passes or it is canceled. Calls of APIs with a
// context-aware form are checkContextless's; deferred calls, calls in main
// and init, and goroutines started on such a function (their own lifetime,
// unless joined) are not reported.
func (st *state) checkMakesRoot(cfg Config, cur inspector.Cursor, call *ast.CallExpr) (analysis.Diagnostic, bool) {
	info := st.pass.TypesInfo
	fn := analysisutil.Callee(info, call)
	m := st.res.MakesRoot(fn)
	if m == nil {
		return analysis.Diagnostic{}, false
	}
	if !cfg.IncludeTests && strings.HasSuffix(st.pass.Fset.File(call.Pos()).Name(), "_test.go") {
		return analysis.Diagnostic{}, false
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() || st.inMainOrInit(f) || st.inDefer(cur, f) {
		return analysis.Diagnostic{}, false
	}
	if f.Obj != nil && f.Obj.Origin() == fn.Origin() {
		return analysis.Diagnostic{}, false
	}
	if _, ok := cur.Parent().Node().(*ast.GoStmt); ok {
		return analysis.Diagnostic{}, false // go f3(): its own lifetime
	}
	if _, _, ok := st.contextForm(call, fn, fn.Type().(*types.Signature)); ok {
		return analysis.Diagnostic{}, false // f.Get where f.GetContext exists: checkContextless's
	}
	reach, ok := st.contextInReach(cur, f)
	if !ok || reach.Kind != ctxflow.ParamContext && reach.Kind != ctxflow.RequestContext {
		return analysis.Diagnostic{}, false
	}
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
	}, true
}
