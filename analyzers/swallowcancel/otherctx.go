package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkOtherErr reports a return, in code that runs once the context x
// has ended (the clause of `case <-x.Done():`, the branch of `if x.Err()
// != nil`), of the error of another context y that need not have ended
// with it:
//
//	case <-t.ctx.Done(): // the transport's own lifetime
//		return nil, ctx.Err() // nil unless the caller's ctx has ended too
//
// y.Err() is nil while y lives, so the function returns a nil error, and
// its zero results, as if it had succeeded. Not reported when y ends
// whenever x does (y is x, or made from it).
func (s *state) checkOtherErr(cur inspector.Cursor, body []ast.Stmt, x ast.Expr, where string) {
	f := s.res.Enclosing(cur)
	if f == nil {
		return
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return
	}
	for _, st := range body {
		ret, ok := st.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != f.Sig.Results().Len() {
			continue
		}
		e := ret.Results[idx]
		y := ctxOfErr(s.info, e)
		if y == nil || s.res.EndsWith(y, x) {
			continue
		}
		xs, ys := types.ExprString(x), types.ExprString(y)
		s.rep.Report(analysis.Diagnostic{
			Pos: e.Pos(), End: e.End(),
			Message: fmt.Sprintf("%s runs when %s is done but returns %s, the error of another context, which is nil while %s lives: %s then returns a nil error, as if it had succeeded",
				where, xs, s.source(e), ys, f.Name()),
			SuggestedFixes: []analysis.SuggestedFix{{
				Message:   "Return the error of " + xs,
				TextEdits: []analysis.TextEdit{{Pos: e.Pos(), End: e.End(), NewText: []byte(s.source(x) + ".Err()")}},
			}},
		})
	}
}

// ctxOfErr returns y when e is y.Err() or context.Cause(y), else nil.
func ctxOfErr(info *types.Info, e ast.Expr) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	fn := analysisutil.Callee(info, call)
	switch {
	case analysisutil.IsMethod(fn, "context", "Context", "Err"):
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
	case analysisutil.IsFunc(fn, "context", "Cause") && len(call.Args) == 1:
		return call.Args[0]
	}
	return nil
}
