package leaseleak

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// registrations returns the statements of the function that store the lease
// in a map entry or a field the same function later takes back without
// releasing it:
//
//	f.inflight[mod] = cancel // registered so that Abort can call it
//	data, err := f.download(ctx, mod)
//	if err != nil {
//		return nil, err // the entry and the context stay behind
//	}
//	delete(f.inflight, mod)
//	cancel()
//
// A function that deletes the entry (delete(m, k) on the same map and key)
// or clears the field (x.f = nil) itself holds the registration only for
// its own run: the store is not a hand-off to the map's owner, and the
// function still owns the lease on every path. Other stores are hand-offs.
func (l *lease) registrations() map[ast.Stmt]bool {
	info := l.f.info()
	var takenBack []ast.Expr // map entries deleted and fields cleared
	var takers []ast.Node    // the delete call or the clearing assignment of each
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 2 {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "delete" {
					takenBack = append(takenBack, &ast.IndexExpr{X: n.Args[0], Index: n.Args[1]})
					takers = append(takers, n)
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, lhs := range n.Lhs {
				if sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr); ok {
					if tv, ok := info.Types[n.Rhs[i]]; ok && tv.IsNil() {
						takenBack = append(takenBack, sel)
						takers = append(takers, n)
					}
				}
			}
		}
		return true
	})
	// A take-back counts only where it can run after the store: clearing
	// the old connection before storing the new one (c.conn = nil; ...;
	// c.conn = conn) hands the new one to the field for good.
	g := l.f.s.paths.Func(l.f.cur.Node())
	after := func(store ast.Stmt, taker ast.Node) bool {
		if g == nil {
			return true
		}
		p, ok := g.Locate(store)
		if !ok {
			return true
		}
		t, ok := g.Locate(taker)
		if !ok {
			return false
		}
		_, ok = g.Reaches(p.Next(), func(n ast.Node) bool { return n == t.Node() }, nil)
		return ok
	}
	if len(takenBack) == 0 {
		return nil
	}
	var out map[ast.Stmt]bool
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, rhs := range as.Rhs {
			id, ok := ast.Unparen(rhs).(*ast.Ident)
			if !ok || !l.objs[info.Uses[id]] {
				continue
			}
			for j, t := range takenBack {
				if sameEntry(info, as.Lhs[i], t) && after(as, takers[j]) {
					if out == nil {
						out = make(map[ast.Stmt]bool)
					}
					out[as] = true
				}
			}
		}
		return true
	})
	return out
}

// sameEntry reports whether a and b name the same map entry (m[k]) or field
// (x.f) by the same access path.
func sameEntry(info *types.Info, a, b ast.Expr) bool {
	a, b = ast.Unparen(a), ast.Unparen(b)
	switch a := a.(type) {
	case *ast.IndexExpr:
		b, ok := b.(*ast.IndexExpr)
		if !ok {
			return false
		}
		if _, isMap := info.TypeOf(a.X).Underlying().(*types.Map); !isMap {
			return false
		}
		return analysisutil.SamePath(info, a.X, b.X) && analysisutil.SamePath(info, a.Index, b.Index)
	case *ast.SelectorExpr:
		b, ok := b.(*ast.SelectorExpr)
		return ok && analysisutil.SamePath(info, a, b)
	}
	return false
}
