package analysisutil

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"
)

// FindNode returns the cursor of n within the tree rooted at c. It is
// Cursor.FindNode in logarithmic rather than linear time: it descends by
// position to the innermost node spanning n, then climbs to n itself, since
// a parent may share n's extent (an ExprStmt and its CallExpr).
func FindNode(c inspector.Cursor, n ast.Node) (inspector.Cursor, bool) {
	cur, ok := c.FindByPos(n.Pos(), n.End())
	for ok && cur.Valid() {
		node := cur.Node()
		if node == nil || node.Pos() < n.Pos() || node.End() > n.End() {
			break
		}
		if node == n {
			return cur, true
		}
		cur = cur.Parent()
	}
	return c.FindNode(n)
}

// Declaration returns the statement that declares the local variable v
// (an *ast.AssignStmt with :=, or an *ast.ValueSpec) with its left and
// right sides, and v's place among the left side; ok is false when v is
// declared otherwise (a parameter, a range key, a type switch). It finds
// the declaring identifier by position in the tree of ins.
func Declaration(ins *inspector.Inspector, v *types.Var) (decl ast.Node, lhs, rhs []ast.Expr, idx int, ok bool) {
	c, found := ins.Root().FindByPos(v.Pos(), v.Pos()+token.Pos(len(v.Name())))
	if !found {
		return nil, nil, nil, 0, false
	}
	id, isID := c.Node().(*ast.Ident)
	if !isID {
		return nil, nil, nil, 0, false
	}
	switch n := c.Parent().Node().(type) {
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE {
			return nil, nil, nil, 0, false
		}
		decl, lhs, rhs = n, n.Lhs, n.Rhs
	case *ast.ValueSpec:
		for _, name := range n.Names {
			lhs = append(lhs, name)
		}
		decl, rhs = n, n.Values
	default:
		return nil, nil, nil, 0, false
	}
	for i, l := range lhs {
		if ast.Unparen(l) == ast.Expr(id) {
			return decl, lhs, rhs, i, true
		}
	}
	return nil, nil, nil, 0, false
}
