package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkTimeoutLabels reports, in a tagless switch or an if, a branch taken
// only for a cancellation (errors.Is(err, context.Canceled), not also its
// deadline) that labels the failure a timeout: it assigns a constant or
// package variable whose name says timeout or deadline (`kind =
// FailureTimeout`). A canceled retrieval is then counted, retried or
// alerted on as a timeout of the other side:
//
//	switch {
//	case errors.Is(err, context.Canceled):
//		kind = FailureTimeout // the caller gave up; nothing timed out
//	case errors.Is(err, context.DeadlineExceeded):
//		kind = FailureTimeout
//	}
func (s *state) checkTimeoutLabels(cond ast.Expr, body []ast.Stmt) {
	t, ok := s.res.CancelTestOf(cond)
	if !ok || !t.Canceled || t.Deadline {
		return
	}
	for _, st := range body {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			continue
		}
		for i, rhs := range as.Rhs {
			name, ok := s.labelName(rhs)
			if !ok || !timeoutWord().MatchString(name) {
				continue
			}
			s.rep.Report(analysis.Diagnostic{
				Pos: rhs.Pos(), End: rhs.End(),
				Message: fmt.Sprintf("this branch is taken for a cancellation (%s) and labels it %s: work the caller canceled is counted as a timeout, and nothing timed out",
					s.source(cond), name),
				Related: []analysis.RelatedInformation{{Pos: as.Lhs[i].Pos(), End: as.Lhs[i].End(), Message: "the label is set here"}},
			})
		}
	}
}

// labelName returns the name of e when it is a constant, or a package
// variable that is not an error (a label, a metric value), as written.
func (s *state) labelName(e ast.Expr) (string, bool) {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return "", false
	}
	switch obj := s.info.Uses[id].(type) {
	case *types.Const:
		return id.Name, true
	case *types.Var:
		if analysisutil.PackageVar(s.info, e) != nil && !analysisutil.IsError(obj.Type()) {
			return id.Name, true
		}
	}
	return "", false
}
