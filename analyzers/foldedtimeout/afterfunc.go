package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkAfterFunc reports a time limit built from a timer that cancels a
// context: `ctx, cancel := context.WithCancel(parent)` and
// `time.AfterFunc(d, cancel)`. When the timer fires, the work under ctx
// ends with context.Canceled, not DeadlineExceeded: callers that tell a
// timeout from a cancellation (errors.Is(err, context.DeadlineExceeded), a
// 504 against a 499, a retry) see a cancellation where a time limit ran
// out. context.WithTimeout(parent, d) ends the same work at the same time
// with the right error. A timer that is Reset (an idle limit that moves)
// or whose function does more than cancel (records that it fired) is left
// alone: WithTimeout cannot move, and such code knows what happened.
func (s *state) checkAfterFunc(cur inspector.Cursor, call *ast.CallExpr) {
	if len(call.Args) != 2 {
		return
	}
	cancel := s.cancelOnly(call.Args[1])
	if cancel == nil {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || f.Body == nil {
		return
	}
	def := s.withCancelDef(f.Body, cancel)
	if def == nil {
		return
	}
	stops, ok := s.timerUses(f.Body, cur)
	if !ok {
		return // Reset, or the timer is used for more than Stop
	}
	ctxName := types.ExprString(def.Lhs[0])
	d := analysis.Diagnostic{
		Pos: call.Pos(),
		End: call.End(),
		Message: fmt.Sprintf("the time limit on %s is a timer that calls %s: when it fires the work ends with context.Canceled, not context.DeadlineExceeded, so callers see a cancellation where the limit ran out; use context.WithTimeout",
			ctxName, cancel.Name()),
		Related: []analysis.RelatedInformation{{Pos: def.Pos(), End: def.End(), Message: ctxName + " is made here with context.WithCancel"}},
	}
	d.SuggestedFixes = s.afterFuncFix(cur, def, call, stops)
	s.rep.Report(d)
}

// cancelOnly returns the variable e calls when it is that variable or a
// literal whose only statement calls it with no arguments.
func (s *state) cancelOnly(e ast.Expr) *types.Var {
	e = ast.Unparen(e)
	if lit, ok := e.(*ast.FuncLit); ok {
		if len(lit.Body.List) != 1 {
			return nil
		}
		es, ok := lit.Body.List[0].(*ast.ExprStmt)
		if !ok {
			return nil
		}
		c, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok || len(c.Args) != 0 {
			return nil
		}
		e = ast.Unparen(c.Fun)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := s.info.Uses[id].(*types.Var)
	return v
}

// withCancelDef returns the statement `ctx, cancel := context.WithCancel(p)`
// (or =) of body that gives cancel its only value.
func (s *state) withCancelDef(body *ast.BlockStmt, cancel *types.Var) *ast.AssignStmt {
	var def *ast.AssignStmt
	n := 0
	ast.Inspect(body, func(m ast.Node) bool {
		as, ok := m.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || (s.info.Defs[id] != cancel && s.info.Uses[id] != cancel) {
				continue
			}
			n++
			if i == 1 && len(as.Lhs) == 2 && len(as.Rhs) == 1 {
				if c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(c.Args) == 1 &&
					analysisutil.IsCallToFunc(s.info, c, "context", "WithCancel") {
					def = as
				}
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return def
}

// timerUses finds what becomes of the timer AfterFunc returns: discarded,
// or held in a variable used only by Stop statements (deferred or not),
// which it returns. ok is false when the timer is used otherwise (Reset).
func (s *state) timerUses(body *ast.BlockStmt, cur inspector.Cursor) (stops []ast.Stmt, ok bool) {
	var timer *types.Var
	switch p := cur.Parent().Node().(type) {
	case *ast.ExprStmt:
		return nil, true
	case *ast.AssignStmt:
		if len(p.Lhs) != 1 || len(p.Rhs) != 1 {
			return nil, false
		}
		id, isID := p.Lhs[0].(*ast.Ident)
		if !isID {
			return nil, false
		}
		timer, _ = s.info.ObjectOf(id).(*types.Var)
		if timer == nil {
			return nil, false
		}
	default:
		return nil, false
	}
	ok = true
	ast.Inspect(body, func(m ast.Node) bool {
		if !ok {
			return false
		}
		var stmt ast.Stmt
		var c *ast.CallExpr
		switch m := m.(type) {
		case *ast.DeferStmt:
			stmt, c = m, m.Call
		case *ast.ExprStmt:
			stmt = m
			c, _ = ast.Unparen(m.X).(*ast.CallExpr)
		case *ast.Ident:
			if s.info.Uses[m] == timer {
				ok = false // a use not accounted for below
			}
			return true
		default:
			return true
		}
		if c == nil {
			return true
		}
		sel, isSel := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !isSel {
			return true
		}
		if id, isID := ast.Unparen(sel.X).(*ast.Ident); isID && s.info.Uses[id] == timer {
			if sel.Sel.Name != "Stop" {
				ok = false
				return false
			}
			stops = append(stops, stmt)
			return false // do not visit the timer's identifier
		}
		return true
	})
	return stops, ok
}

// afterFuncFix replaces WithCancel by WithTimeout and deletes the timer,
// when the AfterFunc statement follows the WithCancel directly (a defer of
// the cancel in between): the limit then starts when it did.
func (s *state) afterFuncFix(cur inspector.Cursor, def *ast.AssignStmt, call *ast.CallExpr, stops []ast.Stmt) []analysis.SuggestedFix {
	stmtCur := cur.Parent()
	stmt, ok := stmtCur.Node().(ast.Stmt)
	if !ok {
		return nil
	}
	for prev, ok := stmtCur.PrevSibling(); ; prev, ok = prev.PrevSibling() {
		if !ok {
			return nil
		}
		if prev.Node() == def {
			break
		}
		if _, isDefer := prev.Node().(*ast.DeferStmt); !isDefer {
			return nil
		}
	}
	wc := ast.Unparen(def.Rhs[0]).(*ast.CallExpr)
	sel, ok := ast.Unparen(wc.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	dur := analysisutil.Source(s.pass, call.Args[0])
	if dur == "" {
		return nil
	}
	edits := []analysis.TextEdit{
		{Pos: sel.Sel.Pos(), End: sel.Sel.End(), NewText: []byte("WithTimeout")},
		{Pos: wc.Args[0].End(), End: wc.Args[0].End(), NewText: []byte(", " + dur)},
	}
	for _, st := range append([]ast.Stmt{stmt}, stops...) {
		e, ok := analysisutil.DeleteLines(s.pass, st)
		if !ok {
			return nil
		}
		edits = append(edits, e)
	}
	return []analysis.SuggestedFix{{Message: "Use context.WithTimeout instead of a timer that cancels", TextEdits: edits}}
}
