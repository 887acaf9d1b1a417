package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkDeadlinePrediction reports a branch that predicts from a context's
// deadline that the work cannot finish in time and returns a new error:
//
//	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < need {
//		return ErrNotEnoughTime
//	}
//
// The work is being refused because of the deadline, which is a timeout:
// callers that tell a timeout by errors.Is(err, context.DeadlineExceeded)
// (a 504, a retry with a longer budget) treat it as another failure.
// Wrapping keeps both: fmt.Errorf("%w: need %v", context.DeadlineExceeded, need).
func (s *state) checkDeadlinePrediction(n *ast.IfStmt) {
	dl, ctx := s.deadlineVar(n)
	if dl == nil || !analysisutil.ReferencesObject(s.info, n.Cond, dl) || len(n.Body.List) == 0 {
		return
	}
	ret, ok := n.Body.List[len(n.Body.List)-1].(*ast.ReturnStmt)
	if !ok {
		return
	}
	for _, r := range ret.Results {
		if !analysisutil.IsError(s.info.TypeOf(r)) {
			continue
		}
		kind, _ := s.newError(r, nil)
		if kind == "" {
			return
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: r.Pos(),
			End: r.End(),
			Message: fmt.Sprintf("this branch gives up because %s's deadline leaves too little time and returns %s, which is not context.DeadlineExceeded: callers that tell a timeout by errors.Is(err, context.DeadlineExceeded) see another failure; wrap it (fmt.Errorf(\"%%w: ...\", context.DeadlineExceeded))",
				types.ExprString(ctx), types.ExprString(r)),
		})
		return
	}
}

// deadlineVar returns the variable that n's init assigns the deadline of a
// context (dl, ok := ctx.Deadline()), and the context.
func (s *state) deadlineVar(n *ast.IfStmt) (*types.Var, ast.Expr) {
	as, ok := n.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return nil, nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok || !analysisutil.IsMethod(analysisutil.Callee(s.info, call), "context", "Context", "Deadline") {
		return nil, nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !s.ctxOwned(sel.X) || s.res.Detached(sel.X) {
		return nil, nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, nil
	}
	v, _ := s.info.ObjectOf(id).(*types.Var)
	return v, sel.X
}
