package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkIterErr reports an iterator whose Err is never read:
//
//	rows, err := db.QueryContext(ctx, q)
//	...
//	for rows.Next() { ... }
//	return out, nil        // rows.Err() never checked
//
// Next returns false both at the end and when the iteration failed, and a
// query canceled half-way is such a failure: the loop ends early, and only
// Err tells the two apart. The iterator is a local variable whose type has
// `Next(...) bool` and `Err() error` methods (sql.Rows, and the cursors and
// row sets of other drivers), made by a call whose error may carry
// cancellation or advanced by a Next that takes a context. Not reported when
// the function has no error result, or the iterator is used other than by
// calling its methods (returned, passed on, stored: someone else may check).
func (s *state) checkIterErr(cur inspector.Cursor, loop *ast.ForStmt) {
	if loop.Init != nil || loop.Post != nil || loop.Cond == nil {
		return
	}
	call, ok := ast.Unparen(loop.Cond).(*ast.CallExpr)
	if !ok {
		return
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Next" {
		return
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return
	}
	if t := s.info.TypeOf(call); t == nil || !types.Identical(t.Underlying(), types.Typ[types.Bool]) || !hasErrMethod(v.Type()) {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || analysisutil.ErrorResult(f.Sig) < 0 || s.quiet[f] || s.groupGoroutine(f) {
		return
	}
	bound := false // Next(ctx) advances under a context
	for _, a := range call.Args {
		if analysisutil.IsContext(s.info.TypeOf(a)) && !s.res.Detached(a) {
			bound = true
		}
	}
	if s.closeChecked(f.Body, v) {
		return // Close reports the iteration's error, and it is checked
	}
	made, other := false, false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := ast.Unparen(n.X).(*ast.Ident); ok && s.info.ObjectOf(x) == v {
				if n.Sel.Name == "Err" {
					other = true // Err is read
				}
				return false
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				x, ok := ast.Unparen(l).(*ast.Ident)
				if !ok || s.info.ObjectOf(x) != v {
					continue
				}
				c, ok := ast.Unparen(n.Rhs[min(i, len(n.Rhs)-1)]).(*ast.CallExpr)
				if !ok || len(n.Rhs) != 1 {
					other = true
					continue
				}
				sig, _ := s.info.TypeOf(c.Fun).Underlying().(*types.Signature)
				if idx := analysisutil.ErrorResult(sig); idx >= 0 && s.res.CallMayCarryCancel(c, idx) {
					made = true
				}
			}
			for _, r := range n.Rhs {
				ast.Inspect(r, func(m ast.Node) bool {
					if sel, ok := m.(*ast.SelectorExpr); ok {
						if x, ok := ast.Unparen(sel.X).(*ast.Ident); ok && s.info.ObjectOf(x) == v {
							if sel.Sel.Name == "Err" {
								other = true // `err := rows.Err()`: Err is read
							}
							return false
						}
					}
					if x, ok := m.(*ast.Ident); ok && s.info.ObjectOf(x) == v {
						other = true
					}
					return !other
				})
			}
			return false
		case *ast.Ident:
			if s.info.Uses[n] == v && n != id {
				other = true // returned, passed on, stored
			}
		}
		return !other
	})
	if other || !made && !bound {
		return
	}
	name := types.ExprString(id)
	s.rep.Report(analysis.Diagnostic{
		Pos: loop.Pos(),
		End: loop.Cond.End(),
		Message: fmt.Sprintf("%s.Err() is never checked, so when %s is canceled the loop over %s.Next() just ends early and %s returns a partial result with a nil error",
			name, orCaller(s.ctxFor(f, nil)), name, f.Name()),
		SuggestedFixes: s.iterErrFix(f, loop, name),
	})
}

// closeChecked reports whether body uses the error of v.Close() (returns
// it, tests it, assigns it to a named variable) outside a defer, where v's
// Close reports the iteration's error: v is an interface, whose
// implementations commonly return from Close what Err returns (litestream's
// file iterators), or a type of this package whose Close returns the field
// its Err returns. database/sql's Rows, whose Close does not, is neither.
func (s *state) closeChecked(body *ast.BlockStmt, v *types.Var) bool {
	if !s.closeReportsErr(v.Type()) {
		return false
	}
	isClose := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) != 0 {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Close" {
			return false
		}
		x, ok := ast.Unparen(sel.X).(*ast.Ident)
		return ok && s.info.Uses[x] == v
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if isClose(r) {
					found = true
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 && isClose(n.Rhs[0]) {
				if id, ok := n.Lhs[0].(*ast.Ident); !ok || id.Name != "_" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// closeReportsErr reports whether t's Close() error is the iteration's
// error: t is an interface with Close() error, or a named type of this
// package whose Close returns the same field as its Err.
func (s *state) closeReportsErr(t types.Type) bool {
	m, _, _ := types.LookupFieldOrMethod(t, true, s.pass.Pkg, "Close")
	fn, ok := m.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !analysisutil.IsError(sig.Results().At(0).Type()) {
		return false
	}
	if types.IsInterface(t) {
		return true
	}
	errFn, _, _ := types.LookupFieldOrMethod(t, true, s.pass.Pkg, "Err")
	ef, ok := errFn.(*types.Func)
	if !ok || fn.Pkg() != s.pass.Pkg || ef.Pkg() != s.pass.Pkg {
		return false
	}
	cf, df := s.res.DeclOf(fn), s.res.DeclOf(ef)
	if cf == nil || df == nil {
		return false
	}
	field := func(f *ctxflow.Func) types.Object {
		if len(f.Body.List) == 0 {
			return nil
		}
		ret, ok := f.Body.List[len(f.Body.List)-1].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return nil
		}
		sel, ok := ast.Unparen(ret.Results[0]).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		return s.info.Uses[sel.Sel]
	}
	a, b := field(cf), field(df)
	return a != nil && a == b
}

// hasErrMethod reports whether t has a method Err() error.
func hasErrMethod(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, "Err")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == 0 && sig.Results().Len() == 1 && analysisutil.IsErrorInterface(sig.Results().At(0).Type())
}

// iterErrFix inserts `if err := rows.Err(); err != nil { return ..., err }`
// after the loop.
func (s *state) iterErrFix(f *ctxflow.Func, loop *ast.ForStmt, name string) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, loop.Pos())
	if file == nil {
		return nil
	}
	ret, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, "err")
	if !ok {
		return nil
	}
	indent := s.indentAt(loop.Pos())
	text := fmt.Sprintf("\n%sif err := %s.Err(); err != nil {\n%s\t%s\n%s}", indent, name, indent, ret, indent)
	return []analysis.SuggestedFix{{
		Message:   "Check " + name + ".Err() after the loop",
		TextEdits: []analysis.TextEdit{{Pos: loop.End(), End: loop.End(), NewText: []byte(text)}},
	}}
}
