package leaseleak

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// checkReleaseContext reports a deferred release that is given the context
// its lease was taken with (or one that ends with it): a lock, lease or
// reservation taken from a service by a context-bound call (`l, err :=
// locks.Lock(ctx, key)`) and given back by a deferred call that takes a
// context and refers to it (`defer l.Unlock(ctx)`, `defer
// api.ReleaseLease(ctx, id, l.Nonce)`). The deferred call runs on every
// return, and on the return that cancellation causes the context has
// already ended: the release fails at once, and what was taken stays held
// until its TTL expires. A release given context.WithoutCancel(ctx) (with
// a timeout of its own) or another live context is quiet.
func (f *function) checkReleaseContext() {
	hasDefer := false
	for range f.cur.Preorder((*ast.DeferStmt)(nil)) {
		hasDefer = true // the inspector's index: no walk of the body
		break
	}
	if !hasDefer {
		return
	}
	info := f.info()
	// The values the function takes with a context-bound call, in the
	// order they are first assigned, each with its last such assignment.
	var taken []taking
	index := make(map[types.Object]int)
	note := func(lhs []ast.Expr, rhs ast.Expr) {
		call, ok := ast.Unparen(rhs).(*ast.CallExpr)
		if !ok {
			return
		}
		x := ctxArg(info, call)
		if x == nil || f.s.flow.Detached(x) {
			return
		}
		for _, e := range lhs {
			id, ok := ast.Unparen(e).(*ast.Ident)
			if !ok || id.Name == "_" {
				continue
			}
			v, ok := info.ObjectOf(id).(*types.Var)
			if !ok || analysisutil.IsError(v.Type()) || analysisutil.IsContext(v.Type()) {
				continue
			}
			if i, ok := index[v]; ok {
				taken[i].ctx, taken[i].call = x, call
			} else {
				index[v] = len(taken)
				taken = append(taken, taking{v, x, call})
			}
		}
	}
	var defers []*ast.DeferStmt
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its own function
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				note(n.Lhs, n.Rhs[0])
			}
		case *ast.ValueSpec:
			if len(n.Values) == 1 {
				var lhs []ast.Expr
				for _, id := range n.Names {
					lhs = append(lhs, id)
				}
				note(lhs, n.Values[0])
			}
		case *ast.DeferStmt:
			defers = append(defers, n)
		}
		return true
	})
	if len(taken) == 0 || len(defers) == 0 {
		return
	}
	for _, d := range defers {
		var calls []*ast.CallExpr
		if lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit); ok {
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					calls = append(calls, n)
				}
				return true
			})
		} else {
			calls = append(calls, d.Call)
		}
		for _, call := range calls {
			f.checkDeferredRelease(d, call, taken)
		}
	}
}

// taking is a value v taken by the context-bound call, given ctx.
type taking struct {
	v    types.Object
	ctx  ast.Expr
	call *ast.CallExpr
}

func (f *function) checkDeferredRelease(d *ast.DeferStmt, call *ast.CallExpr, taken []taking) {
	info := f.info()
	fn := analysisutil.Callee(info, call)
	if fn == nil || !remoteRelease(fn.Name()) {
		return
	}
	a := ctxArg(info, call)
	if a == nil {
		return
	}
	for _, t := range taken {
		x, acq := t.ctx, t.call
		if !analysisutil.ReferencesObject(info, call, t.v) || !f.s.flow.EndsWith(a, x) {
			continue
		}
		if acq.Pos() > d.Pos() {
			continue // taken after the defer: another round's value
		}
		ctxName := types.ExprString(a)
		diag := analysis.Diagnostic{
			Pos: a.Pos(), End: a.End(),
			Message: fmt.Sprintf("the deferred %s is given %s, which has already ended when the function returns because %s was canceled: the release then fails at once, and what %s took stays held until it expires; give the release a context of its own (context.WithoutCancel(%s), with a timeout)",
				fn.Name(), ctxName, types.ExprString(x), acquirerName(info, acq), types.ExprString(x)),
			Related: []analysis.RelatedInformation{{Pos: acq.Pos(), End: acq.End(), Message: "taken here with " + types.ExprString(x)}},
		}
		if fix, ok := f.withoutCancelFix(a); ok {
			diag.SuggestedFixes = []analysis.SuggestedFix{fix}
		}
		f.s.rep.Report(diag)
		return
	}
}

// remoteRelease reports whether a method of this name gives back what a
// context-bound call took (knowledge.RemoteReleasePrefixes).
func remoteRelease(name string) bool {
	for _, p := range knowledge.RemoteReleasePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// ctxArg returns call's context argument, or nil.
func ctxArg(info *types.Info, call *ast.CallExpr) ast.Expr {
	for _, arg := range call.Args {
		if analysisutil.IsContext(info.TypeOf(arg)) {
			return arg
		}
	}
	return nil
}

// withoutCancelFix wraps the context a in context.WithoutCancel, where the
// file imports context under its own name and has Go 1.21 or later.
func (f *function) withoutCancelFix(a ast.Expr) (analysis.SuggestedFix, bool) {
	pn := f.contextPkgAt(a)
	if pn == nil || pn.Imported().Scope().Lookup("WithoutCancel") == nil || f.knownVersion(a.Pos()) && !f.goAtLeast(a.Pos(), "go1.21") {
		return analysis.SuggestedFix{}, false
	}
	return analysis.SuggestedFix{
		Message: "release with context.WithoutCancel(" + types.ExprString(a) + ")",
		TextEdits: []analysis.TextEdit{
			{Pos: a.Pos(), End: a.Pos(), NewText: []byte("context.WithoutCancel(")},
			{Pos: a.End(), End: a.End(), NewText: []byte(")")},
		},
	}, true
}

// contextPkgAt returns the context package's name in scope at a, or nil
// when the file does not import it under that name or a local hides it.
func (f *function) contextPkgAt(a ast.Expr) *types.PkgName {
	scope := f.s.pass.Pkg.Scope().Innermost(a.Pos())
	if scope == nil {
		return nil
	}
	_, obj := scope.LookupParent("context", a.Pos())
	if pn, ok := obj.(*types.PkgName); ok && pn.Imported().Path() == "context" {
		return pn
	}
	return nil
}

// acquirerName names the callee of call for messages.
func acquirerName(info *types.Info, call *ast.CallExpr) string {
	if fn := analysisutil.Callee(info, call); fn != nil {
		return ownership.FuncName(fn)
	}
	return types.ExprString(call.Fun)
}
