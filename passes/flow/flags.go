package flow

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/cfg"
)

// SetFlags returns an edge filter for the paths that start at the statement
// at, inside body: it rules out the branches that contradict a local flag
// already set when at runs.
//
//	started := false
//	for _, t := range transfers {
//		if t.limited {
//			started = true
//			wg.Add(1)
//			go check(&wg, t) // at
//		}
//	}
//	if !started {
//		return // never taken on a path from the go statement
//	}
//	wg.Wait()
//
// A flag is a local bool variable of body that every assignment after its
// declaration sets to true (its declaration gives false or nothing, and its
// address is never taken): once true it stays true. It is set when at runs
// if an assignment of true precedes at in a block that holds at (a
// straight-line statement before it, in its block or a block around it,
// within the same function). Nil when no flag is set.
func SetFlags(info *types.Info, body *ast.BlockStmt, at ast.Node) func(*cfg.Block, int) bool {
	set := setBefore(info, body, at)
	if len(set) == 0 {
		return nil
	}
	for v := range set {
		if !monotone(info, body, v) {
			delete(set, v)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return func(b *cfg.Block, i int) bool {
		if len(b.Succs) != 2 || len(b.Nodes) == 0 {
			return true
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok {
			return true
		}
		val, known := evalFlags(info, cond, set)
		if !known {
			return true
		}
		return (i == 0) == val // Succs[0] is taken when cond holds
	}
}

// setBefore returns the variables assigned true by a statement that
// precedes at in a block holding it, without crossing a function literal.
func setBefore(info *types.Info, body *ast.BlockStmt, at ast.Node) map[*types.Var]bool {
	var path []ast.Node
	var find func(n ast.Node) bool
	find = func(n ast.Node) bool {
		if n == at {
			path = append(path, n)
			return true
		}
		if n == nil || n.Pos() > at.Pos() || n.End() < at.End() {
			return false
		}
		found := false
		ast.Inspect(n, func(m ast.Node) bool {
			if found || m == nil || m == n {
				return !found
			}
			if find(m) {
				found = true
			}
			return false
		})
		if found {
			path = append(path, n)
		}
		return found
	}
	if !find(body) {
		return nil
	}
	// path runs from at up to body.
	set := map[*types.Var]bool{}
	for i := 1; i < len(path); i++ {
		if _, ok := path[i].(*ast.FuncLit); ok {
			break
		}
		blk, ok := path[i].(*ast.BlockStmt)
		if !ok {
			continue
		}
		for _, st := range blk.List {
			if st == path[i-1] {
				break
			}
			if v := assignsTrue(info, st); v != nil {
				set[v] = true
			}
		}
	}
	return set
}

// assignsTrue returns v for the statement `v = true` on a local bool.
func assignsTrue(info *types.Info, st ast.Stmt) *types.Var {
	as, ok := st.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !isTrue(info, as.Rhs[0]) {
		return nil
	}
	id, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := info.Uses[id].(*types.Var)
	return v
}

func isTrue(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	c, ok := info.Uses[id].(*types.Const)
	return ok && c.Pkg() == nil && c.Name() == "true"
}

func isFalse(info *types.Info, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	c, ok := info.Uses[id].(*types.Const)
	return ok && c.Pkg() == nil && c.Name() == "false"
}

// monotone reports whether v, declared in body, starts false and is only
// ever set to true, and its address is never taken.
func monotone(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	if v.Pos() < body.Pos() || v.Pos() >= body.End() {
		return false // a parameter, a result or a variable from outside
	}
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, isID := ast.Unparen(l).(*ast.Ident)
				if !isID || info.ObjectOf(id) != v {
					continue
				}
				switch {
				case len(n.Lhs) != len(n.Rhs):
					ok = false
				case n.Tok == token.DEFINE && info.Defs[id] == v:
					ok = ok && isFalse(info, n.Rhs[i])
				case n.Tok == token.ASSIGN:
					ok = ok && isTrue(info, n.Rhs[i])
				default:
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if info.Defs[id] == v && i < len(n.Values) && !isFalse(info, n.Values[i]) {
					ok = false
				}
			}
		case *ast.UnaryExpr:
			if id, isID := ast.Unparen(n.X).(*ast.Ident); isID && n.Op == token.AND && info.Uses[id] == v {
				ok = false
			}
		case *ast.IncDecStmt, *ast.RangeStmt:
			if rs, isRange := n.(*ast.RangeStmt); isRange {
				for _, e := range []ast.Expr{rs.Key, rs.Value} {
					if id, isID := e.(*ast.Ident); isID && info.ObjectOf(id) == v {
						ok = false
					}
				}
			}
		}
		return ok
	})
	return ok
}

// evalFlags evaluates cond when it is a flag, its negation, or a
// comparison of one with true or false.
func evalFlags(info *types.Info, cond ast.Expr, set map[*types.Var]bool) (val, known bool) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.Ident:
		if v, ok := info.Uses[c].(*types.Var); ok && set[v] {
			return true, true
		}
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			if v, k := evalFlags(info, c.X, set); k {
				return !v, true
			}
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.EQL, token.NEQ:
			x, y := c.X, c.Y
			if isTrue(info, x) || isFalse(info, x) {
				x, y = y, x
			}
			v, k := evalFlags(info, x, set)
			if !k || !(isTrue(info, y) || isFalse(info, y)) {
				return false, false
			}
			eq := v == isTrue(info, y)
			return eq == (c.Op == token.EQL), true
		case token.LAND:
			a, ka := evalFlags(info, c.X, set)
			b, kb := evalFlags(info, c.Y, set)
			switch {
			case ka && !a, kb && !b:
				return false, true
			case ka && kb:
				return true, true
			}
		case token.LOR:
			a, ka := evalFlags(info, c.X, set)
			b, kb := evalFlags(info, c.Y, set)
			switch {
			case ka && a, kb && b:
				return true, true
			case ka && kb:
				return false, true
			}
		}
	}
	return false, false
}
