package flow

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/cfg"
)

// DefsReaching returns the reaching definitions of v at the node at: the
// statements of the function that assign v (an assignment, a var
// declaration, a range clause, an increment, a select case's receive) and
// reach at on some path that passes no other assignment of v, in source
// order. entry reports whether some path from the function's entry reaches
// at with no assignment of v at all (the argument of a parameter, or the
// value of a variable declared outside the function). ok is false when the
// definitions of v cannot all be seen: its address is taken, or a function
// literal assigns it.
func (g *Graph) DefsReaching(v *types.Var, at ast.Node) (defs []ast.Node, entry, ok bool) {
	return g.defsReaching(v, at, false)
}

// NonNilDefsReaching is DefsReaching for the values of v that can reach at
// while not nil: a path on which a `v != nil` or `v == nil` test finds v
// nil carries no definition on. `err = run(); if err != nil { err =
// &CmdError{Err: err} }; return err` returns run's error only when it is
// nil, so only the CmdError reaches the return as a failure.
func (g *Graph) NonNilDefsReaching(v *types.Var, at ast.Node) (defs []ast.Node, entry, ok bool) {
	return g.defsReaching(v, at, true)
}

func (g *Graph) defsReaching(v *types.Var, at ast.Node, nonNil bool) (defs []ast.Node, entry, ok bool) {
	target, found := g.Locate(at)
	if !found || v == nil {
		return nil, false, false
	}
	opaque := false
	ast.Inspect(g.Body, func(n ast.Node) bool {
		if opaque {
			return false
		}
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.AND && g.isVar(n.X, v) {
				opaque = true
			}
		case *ast.FuncLit:
			if Mentions(n.Body, func(m ast.Node) bool { return g.assignsVar(m, v) != nil }) {
				opaque = true
			}
			return false
		}
		return true
	})
	if opaque {
		return nil, false, false
	}
	tnode := target.Node()
	isTarget := func(n ast.Node) bool { return n == tnode }
	// The operand of a range that assigns v stands for the assignment at
	// the loop's head (see NodesOf).
	ranged := map[ast.Node]bool{}
	for _, b := range g.CFG.Blocks {
		if rs, isRange := b.Stmt.(*ast.RangeStmt); isRange && b.Kind == cfg.KindRangeLoop && (g.isVar(rs.Key, v) || g.isVar(rs.Value, v)) {
			ranged[rs.X] = true
		}
	}
	stop := func(n ast.Node) bool { return ranged[n] || g.assignsVar(n, v) != nil }
	var edge func(*cfg.Block, int) bool
	if nonNil {
		// Leave out the edge of a nil test on which v is nil.
		edge = func(b *cfg.Block, j int) bool {
			if len(b.Succs) != 2 || len(b.Nodes) == 0 {
				return true
			}
			cond, isExpr := b.Nodes[len(b.Nodes)-1].(ast.Expr)
			if !isExpr {
				return true
			}
			nilOn, tested := g.nilTest(cond, v)
			return !tested || nilOn != (j == 0)
		}
	}
	reaches := func(p Point) bool {
		_, hit := g.ReachesEdges(p, isTarget, stop, edge)
		return hit
	}
	// afterEntry reports whether a path from just after the event that
	// enters b reaches at with no other assignment.
	afterEntry := func(b *cfg.Block) bool {
		for _, n := range b.Nodes {
			if g.isComm(n) {
				continue
			}
			if isTarget(n) {
				return true
			}
			if stop(n) {
				return false
			}
		}
		for j, s := range b.Succs {
			if (edge == nil || edge(b, j)) && reaches(Point{s, 0}) {
				return true
			}
		}
		return false
	}
	for _, b := range g.CFG.Blocks {
		if !b.Live {
			continue
		}
		if rs, isRange := b.Stmt.(*ast.RangeStmt); isRange && b.Kind == cfg.KindRangeLoop && (g.isVar(rs.Key, v) || g.isVar(rs.Value, v)) {
			// Each round's element is assigned as the head is entered.
			if afterEntry(b) && !slices.Contains(defs, ast.Node(rs)) {
				defs = append(defs, rs)
			}
		}
		if cc, isCase := b.Stmt.(*ast.CommClause); isCase && b.Kind == cfg.KindSelectCaseBody && cc.Comm != nil && g.assignsVar(cc.Comm, v) != nil {
			if afterEntry(b) {
				defs = append(defs, cc.Comm)
			}
		}
		for i, n := range b.Nodes {
			if g.isComm(n) {
				continue
			}
			d := g.assignsVar(n, v)
			if d == nil {
				continue
			}
			if reaches(Point{b, i + 1}) {
				defs = append(defs, d)
			}
		}
	}
	entry = reaches(g.Entry())
	slices.SortFunc(defs, func(a, b ast.Node) int { return int(a.Pos() - b.Pos()) })
	return defs, entry, true
}

// DefValue returns the expression a definition found by DefsReaching
// assigns to v, or nil when it is not one expression of its own (a
// tuple from a call, a range element, an increment, a declaration
// without a value).
func (g *Graph) DefValue(def ast.Node, v *types.Var) ast.Expr {
	switch d := def.(type) {
	case *ast.AssignStmt:
		if len(d.Lhs) != len(d.Rhs) {
			return nil
		}
		for i, l := range d.Lhs {
			if g.isVar(l, v) {
				return d.Rhs[i]
			}
		}
	case *ast.ValueSpec:
		if len(d.Names) != len(d.Values) {
			return nil
		}
		for i, n := range d.Names {
			if g.info.Defs[n] == v {
				return d.Values[i]
			}
		}
	}
	return nil
}

// assignsVar returns the part of the top-level node n that assigns v (the
// assignment, the value spec, the increment), or nil.
func (g *Graph) assignsVar(n ast.Node, v *types.Var) ast.Node {
	switch n := n.(type) {
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			if g.isVar(l, v) {
				return n
			}
		}
	case *ast.IncDecStmt:
		if g.isVar(n.X, v) {
			return n
		}
	case *ast.ValueSpec:
		for _, name := range n.Names {
			if g.info.Defs[name] == v {
				return n
			}
		}
	case *ast.DeclStmt:
		if gd, ok := n.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, spec := range gd.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for _, name := range vs.Names {
						if g.info.Defs[name] == v {
							return vs
						}
					}
				}
			}
		}
	}
	return nil
}
