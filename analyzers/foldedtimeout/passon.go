package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkPassedOn reports the top-level statements of a branch taken when ctx
// (or errExpr) reports cancellation that hand a new error on instead of
// returning it, with the same loss of the cause as a return:
//
//	case <-ctx.Done():
//		es.abort(errors.New("context done"))   (an argument of a call statement)
//		errc <- errors.New("canceled")          (a send)
//		j.err = errors.New("canceled")          (a store to a field or element)
//
// Only new errors (errors.New, fmt.Errorf without %w, an error struct
// literal) are reported, and sentinels whose name or message says timeout;
// a sentinel passed on may be the receiver's own vocabulary. Log calls,
// panics and assignments to local variables are not passing on.
func (s *state) checkPassedOn(body []ast.Stmt, ctx, errExpr ast.Expr, generic bool) {
	for _, st := range body {
		var cands []ast.Expr
		var how string
		switch st := st.(type) {
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok || analysisutil.IsLogCall(s.info, call) || s.builtin(call) {
				continue
			}
			cands = call.Args
			how = "passed to " + types.ExprString(call.Fun)
		case *ast.SendStmt:
			cands = []ast.Expr{st.Value}
			how = "sent on " + types.ExprString(st.Chan)
		case *ast.AssignStmt:
			if len(st.Lhs) != len(st.Rhs) {
				continue
			}
			for i, l := range st.Lhs {
				switch ast.Unparen(l).(type) {
				case *ast.SelectorExpr, *ast.IndexExpr, *ast.StarExpr:
					cands = append(cands, st.Rhs[i])
					how = "stored in " + types.ExprString(l)
				}
			}
		}
		for _, e := range cands {
			if !analysisutil.IsError(s.info.TypeOf(e)) {
				continue
			}
			kind, name := s.newError(e, nil)
			if kind == "" {
				continue
			}
			timeout := timeoutWord().MatchString(name)
			if (kind == "sentinel" || strings.HasPrefix(kind, "error that wraps only")) && !timeout || !timeout && !generic {
				continue
			}
			what := endOf(ctx, errExpr)
			var msg string
			if timeout {
				msg = fmt.Sprintf("%s, %s, reports %s as a timeout: a canceled request is counted and retried as a timeout, and errors.Is(err, context.Canceled) is false; wrap the cause too", types.ExprString(e), how, what)
			} else {
				msg = fmt.Sprintf("%s, %s, replaces %s with a new %s, so whoever reads it cannot tell cancellation from failure: errors.Is(err, context.Canceled) is false; wrap the cause", types.ExprString(e), how, what, kind)
			}
			s.rep.Report(analysis.Diagnostic{
				Pos:            e.Pos(),
				End:            e.End(),
				Message:        msg,
				SuggestedFixes: s.wrapCauseFixes(e, ctx, errExpr),
			})
		}
	}
}

// builtin reports whether call calls a builtin (panic, print).
func (s *state) builtin(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	_, ok = s.info.Uses[id].(*types.Builtin)
	return ok
}
