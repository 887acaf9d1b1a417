package ctxflow

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// nilContextFields returns the context fields of the package's struct
// types that the package sets to nil (`ctx: nil` in a composite literal,
// `c.ctx = nil`) or tests against nil (`if c.ctx == nil`): a value built
// without a context leaves the field nil, so a method cannot count on it
// being in reach. Such a field is not one of a method's Contexts: a check
// that proposed it in place of context.Background() would pass nil.
func nilContextFields(info *types.Info, ins *inspector.Inspector) map[*types.Var]bool {
	out := make(map[*types.Var]bool)
	field := func(e ast.Expr) *types.Var {
		var id *ast.Ident
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id = x.Sel
		default:
			return nil
		}
		v, ok := info.ObjectOf(id).(*types.Var)
		if !ok || !v.IsField() || !analysisutil.IsContext(v.Type()) {
			return nil
		}
		return v
	}
	isNil := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		_, isNil := info.ObjectOf(id).(*types.Nil)
		return isNil
	}
	filter := []ast.Node{(*ast.KeyValueExpr)(nil), (*ast.AssignStmt)(nil), (*ast.BinaryExpr)(nil)}
	for n := range ins.PreorderSeq(filter...) {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if v := field(n.Key); v != nil && isNil(n.Value) {
				out[v] = true
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				continue
			}
			for i, l := range n.Lhs {
				if _, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && isNil(n.Rhs[i]) {
					if v := field(l); v != nil {
						out[v] = true
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				continue
			}
			for _, pair := range [2][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if _, ok := ast.Unparen(pair[0]).(*ast.SelectorExpr); ok && isNil(pair[1]) {
					if v := field(pair[0]); v != nil {
						out[v] = true
					}
				}
			}
		}
	}
	return out
}
