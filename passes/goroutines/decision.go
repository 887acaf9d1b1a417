package goroutines

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// ownDecision reports whether every branch in g's literal is decided by
// the goroutine's own outcome: each if condition compares variables
// declared inside the literal (its error, its result) with nil, and the
// body has no other branching (switch, select, loop, goto); a deferred
// wg.Done does not branch. Such a
// goroutine skips its send for its own reasons, so any number of the
// goroutines may send; one that consults shared state (the last of them to
// finish, a counter, a once) decides among them who sends.
func (a *analysis) ownDecision(g *Goroutine) bool {
	if g.Lit == nil {
		return false
	}
	ok := true
	inspectNode(g.Lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.ForStmt, *ast.RangeStmt, *ast.BranchStmt:
			ok = false
		case *ast.IfStmt:
			ok = ok && a.nilCheck(g.Lit, n.Cond)
		}
		return ok
	})
	return ok
}

// nilCheck reports whether e is `x == nil` or `x != nil`, or a && / ||
// of such, where each x is a variable declared inside lit.
func (a *analysis) nilCheck(lit *ast.FuncLit, e ast.Expr) bool {
	be, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	switch be.Op {
	case token.LAND, token.LOR:
		return a.nilCheck(lit, be.X) && a.nilCheck(lit, be.Y)
	case token.EQL, token.NEQ:
		x, y := ast.Unparen(be.X), ast.Unparen(be.Y)
		if a.info.Types[x].IsNil() {
			x, y = y, x
		}
		id, ok := x.(*ast.Ident)
		if !ok || !a.info.Types[y].IsNil() {
			return false
		}
		v, ok := a.info.Uses[id].(*types.Var)
		return ok && lit.Pos() <= v.Pos() && v.Pos() < lit.End()
	}
	return false
}

// constIterations returns the constant number of iterations of loop l:
// `for i := 0; i < N; i++`, a range over a constant N, an array or a
// slice literal.
func (a *analysis) constIterations(l ast.Stmt) (int64, bool) {
	switch l := l.(type) {
	case *ast.RangeStmt:
		if lit, ok := ast.Unparen(l.X).(*ast.CompositeLit); ok {
			// range []string{"a", "b"}: one iteration per element.
			if _, isSlice := a.info.TypeOf(lit).Underlying().(*types.Slice); isSlice {
				for _, e := range lit.Elts {
					if _, keyed := e.(*ast.KeyValueExpr); keyed {
						return 0, false
					}
				}
				return int64(len(lit.Elts)), true
			}
		}
		if tv, ok := a.info.Types[l.X]; ok {
			if tv.Value != nil {
				return constant.Int64Val(constant.ToInt(tv.Value))
			}
			t := tv.Type.Underlying()
			if p, ok := t.(*types.Pointer); ok {
				t = p.Elem().Underlying()
			}
			if arr, ok := t.(*types.Array); ok {
				return arr.Len(), true
			}
		}
	case *ast.ForStmt:
		be, ok := l.Cond.(*ast.BinaryExpr)
		if !ok || (be.Op != token.LSS && be.Op != token.LEQ) {
			return 0, false
		}
		init, ok := l.Init.(*ast.AssignStmt)
		if !ok || len(init.Rhs) != 1 {
			return 0, false
		}
		lo, hi := a.info.Types[init.Rhs[0]].Value, a.info.Types[be.Y].Value
		if lo == nil || hi == nil {
			return 0, false
		}
		l0, ok0 := constant.Int64Val(constant.ToInt(lo))
		h, ok1 := constant.Int64Val(constant.ToInt(hi))
		if !ok0 || !ok1 {
			return 0, false
		}
		if be.Op == token.LEQ {
			h++
		}
		return max(h-l0, 0), true
	}
	return 0, false
}
