package analysisutil

import (
	"go/ast"

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
