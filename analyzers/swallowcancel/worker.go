package swallowcancel

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// stopsOnlyOnCancel reports whether f is a worker whose only way to end
// without an error is its context ending: its body ends in a `for {}` that
// nothing breaks out of, and every return of a nil error is guarded by a
// test of the context (ctx.Err() != nil, a wait helper given the context
// that says whether it ended). Its caller cannot mistake that nil for
// finished work: there is no other success. A loop that also returns nil
// when its work runs out (the last page) is not such a worker, nor is one
// that returns the context's error (ctx.Err(), context.Cause(ctx)) on
// another path: its stop is an error there, so a nil for it is a loss.
func (s *state) stopsOnlyOnCancel(f *ctxflow.Func) bool {
	last := lastStmt(f.Body)
	var label *types.Label
	if ls, ok := last.(*ast.LabeledStmt); ok {
		label, _ = s.info.Defs[ls.Label].(*types.Label)
		last = ls.Stmt
	}
	loop, ok := last.(*ast.ForStmt)
	if !ok || loop.Cond != nil {
		return false
	}
	idx := analysisutil.ErrorResult(f.Sig)
	ok = true
	var stack []ast.Node
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if !ok {
			return false
		}
		if _, lit := n.(*ast.FuncLit); lit {
			return false
		}
		switch n := n.(type) {
		case *ast.BranchStmt:
			if n.Tok == token.BREAK && s.breaksOut(n, stack, loop, label) {
				ok = false
			}
		case *ast.ReturnStmt:
			if s.returnsNilError(f, n, idx) && !s.guardedByCancel(stack) {
				ok = false
			}
			// A worker that returns ctx.Err() on one path says that its
			// stop is an error; a nil for the same stop elsewhere is no
			// convention but a loss.
			if idx >= 0 && len(n.Results) == f.Sig.Results().Len() && s.res.CtxEndOf(n.Results[idx]) != nil {
				ok = false
			}
		}
		stack = append(stack, n)
		return true
	})
	return ok
}

// breaksOut reports whether br, with the nodes above it in stack, leaves
// loop.
func (s *state) breaksOut(br *ast.BranchStmt, stack []ast.Node, loop *ast.ForStmt, label *types.Label) bool {
	if br.Label != nil {
		return label != nil && s.info.Uses[br.Label] == label
	}
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			return stack[i] == loop
		}
	}
	return false
}

// guardedByCancel reports whether the innermost if or select clause around
// a statement (stack holds its ancestors) is taken when the context ends.
func (s *state) guardedByCancel(stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.IfStmt:
			return s.res.ChecksCancel(n.Cond) || s.waitHelper(n.Cond)
		case *ast.CommClause:
			return n.Comm != nil && s.res.ChecksCancel(n.Comm)
		case *ast.ForStmt, *ast.RangeStmt:
			return false
		}
	}
	return false
}

// waitHelper reports whether cond calls a function that is given a context
// and answers with a bool: `!backoff(ctx, n)`, `sleepCtx(ctx, d)`.
func (s *state) waitHelper(cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if t := s.info.TypeOf(call); t == nil || !types.Identical(t.Underlying(), types.Typ[types.Bool]) {
			return true
		}
		for _, a := range call.Args {
			if analysisutil.IsContext(s.info.TypeOf(a)) {
				found = true
			}
		}
		return !found
	})
	return found
}
