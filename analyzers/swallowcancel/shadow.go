package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkShadow reports an error that a function literal with no error
// result declares with := over an error variable of the function around
// it, when that function tests the outer variable after the literal and
// the literal never sets it: the goroutine or callback meant to report
// through the outer variable, and the cancellation the inner one may carry
// never reaches the test, so the function goes on as if the work had
// succeeded.
//
//	var err error
//	go func() {
//		defer close(done)
//		raw, err := c.Do(ctx, req) // reported: shadows Post's err
//		if err != nil {
//			return
//		}
//		resp = decode(raw)
//	}()
//	<-done
//	if err != nil { ... } // always nil
//
// The inner variable must stay in the literal: its uses are comparisons
// with nil and arguments of log calls (a value handed on, sent or stored is
// reported elsewhere, or not lost).
func (s *state) checkShadow(cur inspector.Cursor, as *ast.AssignStmt, call *ast.CallExpr) {
	if as.Tok != token.DEFINE || len(as.Rhs) != 1 {
		return
	}
	sig, _ := s.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	if sig == nil || sig.Results().Len() != len(as.Lhs) {
		return
	}
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 {
		return
	}
	id, ok := as.Lhs[idx].(*ast.Ident)
	if !ok || id.Name == "_" {
		return
	}
	inner, ok := s.info.Defs[id].(*types.Var)
	if !ok || inner == nil {
		return // not a new variable: `=` semantics for this one
	}
	f := s.res.Enclosing(cur)
	if f == nil {
		return
	}
	lit, ok := f.Node.(*ast.FuncLit)
	if !ok || analysisutil.ErrorResult(f.Sig) >= 0 {
		return
	}
	if !s.res.CallMayCarryCancel(call, idx) || s.isCleanup(calleeShortName(s.info, call)) {
		return
	}
	scope := s.info.Scopes[lit.Type]
	if scope == nil || scope.Parent() == nil {
		return
	}
	_, obj := scope.Parent().LookupParent(id.Name, lit.Pos())
	outer, ok := obj.(*types.Var)
	if !ok || outer.Parent() == nil || outer.Parent() == s.pass.Pkg.Scope() || !analysisutil.IsError(outer.Type()) {
		return
	}
	around := f.Parent
	if around == nil || outer.Pos() < around.Body.Pos() && !isParamOf(outer, around.Type) {
		return // a variable of a function further out
	}
	if s.assignedIn(lit, outer) || !s.readAfter(around.Body, outer, lit.End()) || !s.staysInside(lit, inner) {
		return
	}
	owner := "the function around it"
	if around.Obj != nil {
		owner = around.Obj.Name()
	}
	ctx := s.ctxFor(f, call)
	d := analysis.Diagnostic{
		Pos: id.Pos(), End: id.End(),
		Message: fmt.Sprintf("%s declared here shadows the %s of %s, which %s tests after this literal: the error of %s, which may carry the cancellation of %s, never reaches that test, so %s goes on as if the work had succeeded",
			id.Name, id.Name, owner, owner, calleeName(call), orCaller(ctx), owner),
	}
	if s.onlyNewName(as, id) {
		// raw, err := ... with raw declared elsewhere is not mechanical;
		// err := ... alone becomes err = ....
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   fmt.Sprintf("assign %s's %s instead of declaring a new one", owner, id.Name),
			TextEdits: []analysis.TextEdit{{Pos: as.TokPos, End: as.TokPos + token.Pos(len(":=")), NewText: []byte("=")}},
		}}
	}
	s.rep.Report(d)
}

// onlyNewName reports whether id is the only variable as declares.
func (s *state) onlyNewName(as *ast.AssignStmt, id *ast.Ident) bool {
	for _, l := range as.Lhs {
		if l, ok := l.(*ast.Ident); ok && l != id && l.Name != "_" && s.info.Defs[l] != nil {
			return false
		}
	}
	return true
}

func isParamOf(v *types.Var, ft *ast.FuncType) bool {
	return ft != nil && ft.Pos() <= v.Pos() && v.Pos() < ft.End()
}

// assignedIn reports whether n assigns v anywhere (or takes its address).
func (s *state) assignedIn(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.Uses[id] == v {
					found = true
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(m.X).(*ast.Ident); ok && m.Op == token.AND && s.info.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// readAfter reports whether body reads v after pos (a use that is not the
// left side of an assignment).
func (s *state) readAfter(body ast.Node, v *types.Var, pos token.Pos) bool {
	lhs := map[*ast.Ident]bool{}
	found := false
	ast.Inspect(body, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					lhs[id] = true
				}
			}
		case *ast.Ident:
			if m.Pos() > pos && !lhs[m] && s.info.Uses[m] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// staysInside reports whether every use of v in lit is a comparison with
// nil or an argument of a log call.
func (s *state) staysInside(lit *ast.FuncLit, v *types.Var) bool {
	ok := true
	var stack []ast.Node
	ast.Inspect(lit.Body, func(m ast.Node) bool {
		if m == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, m)
		id, isID := m.(*ast.Ident)
		if !isID || s.info.Uses[id] != v || len(stack) < 2 {
			return ok
		}
		switch p := stack[len(stack)-2].(type) {
		case *ast.BinaryExpr:
			if (p.Op == token.EQL || p.Op == token.NEQ) && (isNilIdent(s.info, p.X) || isNilIdent(s.info, p.Y)) {
				return ok
			}
		case *ast.CallExpr:
			if analysisutil.IsLogCall(s.info, p) {
				return ok
			}
		}
		ok = false
		return ok
	})
	return ok
}

func isNilIdent(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}
