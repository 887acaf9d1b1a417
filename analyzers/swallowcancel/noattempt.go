package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkNoAttempt reports a retry loop whose condition stops on the end of
// the context, followed by a return of the last attempt's error that is
// still nil when the loop never ran:
//
//	var lastErr error
//	for r := newRetrier(ctx); r.Next(); { // Next is false once ctx is done
//		if lastErr = apply(ctx); lastErr == nil {
//			return nil
//		}
//	}
//	return lastErr // nil when ctx was canceled before the first attempt
//
// The condition is false at once when the context has already ended, the
// variable keeps the zero value it was declared with, and the caller is
// told that work which never ran succeeded. The condition observes the
// context when it tests it (ctx.Err() == nil) or calls a function of the
// package returning a bool whose body does (a retrier's Next reading its
// context field), or one with the ChecksContext fact.
func (s *state) checkNoAttempt(cur inspector.Cursor, loop *ast.ForStmt) {
	if loop.Cond == nil || !s.condObservesCtx(loop.Cond) {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || len(f.Contexts) == 0 || s.quiet[f] || s.groupGoroutine(f) {
		return
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return
	}
	next, ok := cur.NextSibling()
	if !ok {
		return
	}
	ret, ok := next.Node().(*ast.ReturnStmt)
	if !ok || len(ret.Results) != f.Sig.Results().Len() {
		return
	}
	id, ok := ast.Unparen(ret.Results[idx]).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() || s.escapes(v) {
		return
	}
	// v is declared without a value before the loop, in the same block,
	// and nothing between the declaration and the loop's condition sets it.
	declared := false
	for prev, ok := cur.PrevSibling(); ok; prev, ok = prev.PrevSibling() {
		st, isStmt := prev.Node().(ast.Stmt)
		if !isStmt {
			continue
		}
		if zeroDecl(s.info, st, v) {
			declared = true
			break
		}
		if assignsTo(s.info, st, v) {
			return
		}
	}
	if !declared || loop.Init != nil && assignsTo(s.info, loop.Init, v) {
		return
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: ret.Pos(),
		End: ret.End(),
		Message: fmt.Sprintf("when the context has ended before the first attempt the loop condition is false at once and %s is still nil, so %s returns success for work that never ran",
			v.Name(), f.Name()),
		Related: []analysis.RelatedInformation{{Pos: loop.Cond.Pos(), End: loop.Cond.End(), Message: "this condition stops on the end of the context"}},
	})
}

// zeroDecl reports whether st declares v without a value (var v error) or
// with nil.
func zeroDecl(info *types.Info, st ast.Stmt, v *types.Var) bool {
	ds, ok := st.(*ast.DeclStmt)
	if !ok {
		return false
	}
	gd, ok := ds.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return false
	}
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, n := range vs.Names {
			if info.Defs[n] != v {
				continue
			}
			return len(vs.Values) == 0 || i < len(vs.Values) && isNilExpr(info, vs.Values[i])
		}
	}
	return false
}

// condObservesCtx reports whether a loop condition tests the end of a
// context, directly or through a bool helper that does.
func (s *state) condObservesCtx(cond ast.Expr) bool {
	if s.res.ChecksCancel(cond) {
		return true
	}
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn := analysisutil.Callee(s.info, call)
		if fn == nil {
			return true
		}
		sig := fn.Type().(*types.Signature)
		if sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type().Underlying(), types.Typ[types.Bool]) {
			return true
		}
		if s.res.ChecksContext(fn) {
			found = true
			return false
		}
		if f := s.res.DeclOf(fn); f != nil && s.res.ChecksCancel(f.Body) {
			found = true
		}
		return !found
	})
	return found
}

// assignsTo reports whether n assigns v anywhere (=, :=, op=, ++), outside
// nested function literals too: a literal that sets it may run.
func assignsTo(info *types.Info, n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && info.ObjectOf(id) == v {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(m.X).(*ast.Ident); ok && info.ObjectOf(id) == v {
				found = true
			}
		}
		return !found
	})
	return found
}
