package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// Group types whose Wait returns the first error of goroutines that run
// under a context derived from the one the group was made with: the
// goroutines' cancellation (and the parent context's) comes back through
// Wait.
const (
	errgroupPath = "golang.org/x/sync/errgroup"
	scopePath    = RuntimeModule + "/scope"
)

// isGroup reports whether t is *errgroup.Group or *scope.Scope.
func isGroup(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	return analysisutil.IsNamed(p.Elem(), errgroupPath, "Group") || analysisutil.IsNamed(p.Elem(), scopePath, "Scope")
}

// groupWait reports whether call is g.Wait() on a local group variable g
// made only by errgroup.WithContext(ctx) or scope.New(ctx) with a context
// that is not detached: the error it returns may be the cancellation of
// ctx or of the group's own context. A group built any other way (a zero
// errgroup.Group, a field) is not followed.
func (r *Result) groupWait(fn *types.Func, call *ast.CallExpr) bool {
	if !analysisutil.IsMethod(fn, errgroupPath, "Group", "Wait") && !analysisutil.IsMethod(fn, scopePath, "Scope", "Wait") {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return false
	}
	ctors := r.groupAssigns[r.info.ObjectOf(id)]
	if len(ctors) == 0 {
		return false
	}
	for _, c := range ctors {
		if c == nil || len(c.Args) != 1 {
			return false
		}
		callee := analysisutil.Callee(r.info, c)
		if !analysisutil.IsFunc(callee, errgroupPath, "WithContext") && !analysisutil.IsFunc(callee, scopePath, "New") {
			return false
		}
		if r.Detached(c.Args[0]) {
			return false
		}
	}
	return true
}
