package analysisutil

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// WalkSkipReturn reports whether e, returned at cur, is a skip sentinel
// (filepath.SkipAll, fs.SkipDir) returned by a function literal given
// directly to a standard tree walk (filepath.WalkDir and kin,
// knowledge.Walker): the walk stops and returns nil, so the sentinel is a
// nil error for whoever called the walk.
func WalkSkipReturn(info *types.Info, cur inspector.Cursor, e ast.Expr) bool {
	v := PackageVar(info, ast.Unparen(e))
	if v == nil || v.Pkg() == nil || !knowledge.WalkSkip(v.Pkg().Path(), v.Name()) {
		return false
	}
	for lit := range cur.Enclosing((*ast.FuncLit)(nil)) {
		call, ok := lit.Parent().Node().(*ast.CallExpr)
		if !ok {
			return false
		}
		fn := Callee(info, call)
		return fn != nil && fn.Pkg() != nil && knowledge.Walker(fn.Pkg().Path(), fn.Name())
	}
	return false
}
