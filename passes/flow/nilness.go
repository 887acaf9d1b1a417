package flow

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/cfg"
)

// NilAt reports whether the local variable v (of an interface or pointer
// type) holds nil whenever control reaches the top-level node at: every
// path from the function's entry to it last assigns v nil (its zero value
// or an explicit nil), or passes the branch of a `v != nil` / `v == nil`
// test on which v is nil, after any other assignment.
//
//	var err error
//	for _, c := range cmds {
//		select {
//		case <-ctx.Done():
//			return fmt.Errorf("canceled: %w", err) // err is nil here
//		default:
//		}
//		if err = c.Run(ctx); err != nil {
//			return err
//		}
//	}
//
// It answers false when it cannot tell: v is a parameter (not a result),
// its address is taken, a function literal assigns it, or at is not a
// node of the graph.
func (g *Graph) NilAt(v *types.Var, at ast.Node) bool {
	target, ok := g.Locate(at)
	if !ok || target.Index < 0 {
		return false
	}
	if !g.trackable(v) {
		return false
	}
	// seen[state][b] tells whether block b was entered in that state (v
	// nil, or possibly not). A block is walked once per state.
	const (
		isNil = iota
		maybe
	)
	var seen [2][]bool
	seen[isNil] = make([]bool, len(g.CFG.Blocks))
	seen[maybe] = make([]bool, len(g.CFG.Blocks))
	start := isNil
	if g.isParam(v) {
		start = maybe
	}
	type item struct {
		b     *cfg.Block
		state int
	}
	stack := []item{{g.CFG.Blocks[0], start}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.state][it.b.Index] {
			continue
		}
		seen[it.state][it.b.Index] = true
		state := it.state
		if n := entryNode(it.b); n != nil {
			state = g.nilEffect(n, v, state)
		}
		if rs, ok := it.b.Stmt.(*ast.RangeStmt); ok && it.b.Kind == cfg.KindRangeLoop {
			// The head of a range loop assigns its key and value each
			// round (its entry node is the operand, which assigns nothing).
			state = g.nilEffect(rs, v, state)
		}
		for i, n := range it.b.Nodes {
			if it.b == target.Block && i == target.Index && state == maybe {
				return false
			}
			if g.isComm(n) {
				continue // it happens at its case's body
			}
			state = g.nilEffect(n, v, state)
		}
		for j, succ := range it.b.Succs {
			next := state
			if len(it.b.Succs) == 2 && len(it.b.Nodes) > 0 {
				if cond, ok := it.b.Nodes[len(it.b.Nodes)-1].(ast.Expr); ok {
					if nilOn, ok := g.nilTest(cond, v); ok && nilOn == (j == 0) {
						next = isNil
					}
				}
			}
			stack = append(stack, item{succ, next})
		}
	}
	return true
}

// nilEffect returns v's state (0 nil, 1 maybe non-nil) after node n.
func (g *Graph) nilEffect(n ast.Node, v *types.Var, state int) int {
	is := func(e ast.Expr) bool { return g.isVar(e, v) }
	isNilExpr := g.isNilExpr
	switch n := n.(type) {
	case *ast.AssignStmt:
		for i, l := range n.Lhs {
			if !is(l) {
				continue
			}
			if len(n.Lhs) == len(n.Rhs) && isNilExpr(n.Rhs[i]) {
				state = 0
			} else {
				state = 1
			}
		}
	case *ast.DeclStmt:
		gd, ok := n.Decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			break
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, name := range vs.Names {
				if !is(name) {
					continue
				}
				switch {
				case len(vs.Values) == 0:
					state = 0
				case len(vs.Values) == len(vs.Names) && isNilExpr(vs.Values[i]):
					state = 0
				default:
					state = 1
				}
			}
		}
	case *ast.RangeStmt:
		if n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value) {
			state = 1
		}
	}
	return state
}

// nilTest reports, for a condition `v != nil` or `v == nil` (either
// operand order), whether v is nil when the condition holds.
func (g *Graph) nilTest(cond ast.Expr, v *types.Var) (nilWhenTrue, ok bool) {
	b, isBin := ast.Unparen(cond).(*ast.BinaryExpr)
	if !isBin || b.Op != token.EQL && b.Op != token.NEQ {
		return false, false
	}
	is := func(e ast.Expr) bool { return g.isVar(e, v) }
	if !(is(b.X) && g.isNilExpr(b.Y) || is(b.Y) && g.isNilExpr(b.X)) {
		return false, false
	}
	return b.Op == token.EQL, true
}

// isVar reports whether e names v (a use, or its declaration).
func (g *Graph) isVar(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && (g.info.Uses[id] == v || g.info.Defs[id] == v)
}

// isNilExpr reports whether e is the untyped nil.
func (g *Graph) isNilExpr(e ast.Expr) bool {
	tv, ok := g.info.Types[e]
	return ok && tv.IsNil()
}

// trackable reports whether NilAt can follow v: a variable of the
// function (declared in its body or its results), whose address is never
// taken and that no function literal assigns.
func (g *Graph) trackable(v *types.Var) bool {
	if v == nil {
		return false
	}
	// A local of the body, a result or a parameter; a package variable
	// (declared anywhere in the package, before or after the body) holds
	// whatever it was given elsewhere.
	if inBody := v.Pos() >= g.Body.Pos() && v.Pos() < g.Body.End(); !inBody && !g.isResult(v) {
		return g.isParam(v) && g.untouched(v)
	}
	return g.untouched(v)
}

func (g *Graph) untouched(v *types.Var) bool {
	ok := true
	var inLit int
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			inLit++
			ast.Inspect(n.Body, visit)
			inLit--
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && g.isVar(n.X, v) {
				ok = false
			}
		case *ast.AssignStmt:
			if inLit > 0 {
				for _, l := range n.Lhs {
					if g.isVar(l, v) {
						ok = false
					}
				}
			}
		}
		return ok
	}
	ast.Inspect(g.Body, visit)
	return ok
}

// isParam reports whether v is a parameter (not a result) of the graph's
// function; isResult whether it is a named result.
func (g *Graph) isParam(v *types.Var) bool {
	ft := g.typ
	return ft != nil && ft.Params != nil && ft.Params.Pos() <= v.Pos() && v.Pos() < ft.Params.End()
}

func (g *Graph) isResult(v *types.Var) bool {
	ft := g.typ
	return ft != nil && ft.Results != nil && ft.Results.Pos() <= v.Pos() && v.Pos() < ft.Results.End()
}
