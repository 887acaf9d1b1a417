package swallowcancel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkCase reports a switch case taken on a cancellation that returns a
// nil error, the switch form of `if errors.Is(err, context.Canceled) {
// return nil }`:
//
//	switch {
//	case errors.Is(err, errNotFound), errors.Is(err, context.Canceled):
//		return nil, nil
//	}
//
//	switch err {
//	case context.Canceled:
//		return nil
//	}
//
// A case with several expressions is taken when any of them holds, so one
// cancellation test among them is enough.
func (s *state) checkCase(cur inspector.Cursor, cc *ast.CaseClause) {
	if len(cc.Body) == 0 {
		return
	}
	sw, ok := cur.Parent().Parent().Node().(*ast.SwitchStmt)
	if !ok {
		return
	}
	if len(cc.List) == 0 {
		s.checkFailureCase(cur, sw, cc)
		return
	}
	for i, e := range cc.List {
		t, ok := s.caseTest(sw.Tag, e)
		if !ok || !t.Canceled {
			continue
		}
		if t.Ctx != nil && !s.ctxOwned(t.Ctx) {
			return
		}
		f := s.res.Enclosing(cur)
		if f == nil {
			return
		}
		var own []analysis.SuggestedFix
		if len(cc.List) > 1 {
			// The other expressions keep their success; the cancellation
			// goes on to the cases below, or past the switch.
			own = []analysis.SuggestedFix{}
			from, to := e.Pos(), e.End()
			if i+1 < len(cc.List) {
				to = cc.List[i+1].Pos()
			} else {
				from = cc.List[i-1].End()
			}
			if !s.lastImportUse(e) {
				own = append(own, analysis.SuggestedFix{
					Message:   "Remove the cancellation from the case",
					TextEdits: []analysis.TextEdit{{Pos: from, End: to}},
				})
			}
		}
		s.reportNilOnCancel(f, t, cc.Body[len(cc.Body)-1], cc.Pos(), cc.Colon+1, own)
		return
	}
	s.checkFailureCase(cur, sw, cc)
}

// checkFailureCase reports a clause of a tagless switch that is taken
// when a carrier is not nil and only logs it, the switch form of `if err
// != nil { log(err) }` in a loop:
//
//	switch {
//	case err == nil:
//	case errors.Is(err, errSkipped):
//		log.Print("skipped")
//	default:
//		log.Printf("failed: %v", err) // a cancellation too: the loop goes on
//	}
//
// The clause is `case err != nil:`, or the default of a switch one of
// whose cases is err == nil. No clause of the switch may test for
// cancellation: then the default does not see it.
func (s *state) checkFailureCase(cur inspector.Cursor, sw *ast.SwitchStmt, cc *ast.CaseClause) {
	if sw.Tag != nil || len(cc.Body) == 0 {
		return
	}
	var errVar *types.Var
	var errExpr *ast.Ident
	for _, e := range cc.List {
		if v, id := s.testedCarrier(e); v != nil && errVar == nil {
			errVar, errExpr = v, id
		}
	}
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if s.res.ChecksCancel(e) {
				return
			}
			if cc.List == nil && errVar == nil {
				errVar, errExpr = s.testedNil(e)
			}
		}
	}
	if errVar == nil || s.res.ChecksCancel(&ast.BlockStmt{List: cc.Body}) {
		return
	}
	body := &ast.BlockStmt{Lbrace: cc.Colon, List: cc.Body, Rbrace: cc.End()}
	if analysisutil.UsedOutsideLogs(s.info, body, errVar) {
		return
	}
	swCur := cur.Parent().Parent()
	f := s.res.Enclosing(cur)
	if f == nil || s.checkedBefore(swCur, errVar) || s.inTeardown(f) {
		return
	}
	s.reportLogged(cur, f, nil, body, cc.Pos(), cc.Colon+1, errVar, errExpr)
}

// testedNil returns the carrier e tests to be nil (err == nil).
func (s *state) testedNil(e ast.Expr) (*types.Var, *ast.Ident) {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != token.EQL {
		return nil, nil
	}
	return s.testedCarrier(&ast.BinaryExpr{X: b.X, Op: token.NEQ, Y: b.Y})
}

// caseTest returns the cancellation test of case expression e of a switch
// on tag (nil for a tagless switch).
func (s *state) caseTest(tag, e ast.Expr) (ctxflow.CancelTest, bool) {
	if tag == nil {
		return s.res.CancelTestOf(e)
	}
	sentinel := ctxflow.ContextSentinel(s.info, e)
	if sentinel == "" || !analysisutil.IsError(s.info.TypeOf(tag)) || ctxflow.ContextSentinel(s.info, tag) != "" {
		return ctxflow.CancelTest{}, false
	}
	t := ctxflow.CancelTest{Err: tag, Ctx: s.res.CtxErrOf(tag), Canceled: sentinel == "Canceled", Deadline: sentinel == "DeadlineExceeded"}
	if _, isCall := ast.Unparen(tag).(*ast.CallExpr); isCall {
		t.Err = nil
	}
	return t, true
}

// namedNilAt reports whether the named result v is nil at the bare return
// ret: no statement of f assigns it at all (it keeps its zero value), or
// the statement that last assigns it before ret, in ret's own block, sets
// it to nil. A result that a function literal mentions (a deferred
// closure may set it) or whose address is taken is never known to be nil.
func (s *state) namedNilAt(f *ctxflow.Func, ret *ast.ReturnStmt, v *types.Var) bool {
	if v.Name() == "" || v.Name() == "_" {
		return false
	}
	var last *ast.AssignStmt
	assigned, escapes := false, false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if escapes {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if analysisutil.ReferencesObject(s.info, n, v) {
				escapes = true
			}
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && analysisutil.ReferencesObject(s.info, n.X, v) {
				escapes = true
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.ObjectOf(id) == v {
					assigned = true
					if n.End() <= ret.Pos() && (last == nil || n.Pos() > last.Pos()) {
						last = n
					}
				}
			}
		}
		return true
	})
	switch {
	case escapes:
		return false
	case !assigned:
		return true
	case last == nil || len(last.Lhs) != 1 || len(last.Rhs) != 1 || !isNilExpr(s.info, last.Rhs[0]):
		return false
	}
	// last must run right before ret: both in the same block, with no
	// other assignment to v between them (last is the nearest).
	same := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if b, ok := n.(*ast.BlockStmt); ok {
			hasRet, hasLast := false, false
			for _, st := range b.List {
				hasRet = hasRet || st == ret
				hasLast = hasLast || st == last
			}
			if hasRet && hasLast {
				same = true
			}
		}
		return !same
	})
	return same
}

// isChan reports whether t is a channel type.
func isChan(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok
}
