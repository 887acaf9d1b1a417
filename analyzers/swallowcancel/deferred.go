package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// checkDeferred reports a deferred function literal that clears the named
// error result of the function deferring it, or overwrites it on every
// path, when that function may return a cancellation: the defer runs after
// the return statement has set the result, so whatever the body returned
// the caller sees the defer's value.
//
//   - `err = nil`, unless a condition around it excludes cancellation (it
//     tests err for a specific error other than the context's, or for nil);
//   - `err = x` with x not derived from err (`err = w.Close()`), outside
//     any condition: a successful Close turns the canceled work into
//     success. Under a condition (`if cerr != nil { err = cerr }`) the
//     result stays an error.
//
// Assignments that keep err (`err = fmt.Errorf("...: %w", err)`,
// errors.Join(err, cerr)) and recover handlers (`err = fmt.Errorf("panic:
// %v", r)` under `r != nil`) keep the failure.
func (s *state) checkDeferred(cur inspector.Cursor, d *ast.DeferStmt) {
	lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
	if !ok {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || s.quiet[f] || s.groupGoroutine(f) {
		return
	}
	if s.inTeardown(f) && !analysisutil.TakesContext(f.Sig) {
		return // Close clears the cancellation it caused
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return
	}
	res := f.Sig.Results().At(idx)
	if res.Name() == "" || res.Name() == "_" {
		return
	}
	ret := s.carryingReturn(f, res, d)
	if ret == nil {
		return
	}
	var guards []ast.Expr
	var visit func(list []ast.Stmt)
	visit = func(list []ast.Stmt) {
		for _, st := range list {
			switch st := st.(type) {
			case *ast.AssignStmt:
				s.deferredAssign(f, lit, st, res, guards, ret)
			case *ast.IfStmt:
				guards = append(guards, st.Cond)
				visit(st.Body.List)
				guards = guards[:len(guards)-1]
				if st.Else != nil {
					// The else branch runs when the condition fails: treat
					// it as guarded by the negation, which excludes nothing
					// that is not known.
					guards = append(guards, &ast.UnaryExpr{Op: token.NOT, X: st.Cond})
					switch e := st.Else.(type) {
					case *ast.BlockStmt:
						visit(e.List)
					case *ast.IfStmt:
						visit([]ast.Stmt{e})
					}
					guards = guards[:len(guards)-1]
				}
			case *ast.BlockStmt:
				visit(st.List)
			}
		}
	}
	visit(lit.Body.List)
}

// deferredAssign reports as if it clears or overwrites res.
func (s *state) deferredAssign(f *ctxflow.Func, lit *ast.FuncLit, as *ast.AssignStmt, res *types.Var, guards []ast.Expr, ret *ast.ReturnStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, lhs := range as.Lhs {
		id, ok := ast.Unparen(lhs).(*ast.Ident)
		if !ok || s.info.Uses[id] != res {
			continue
		}
		rhs := as.Rhs[i]
		if s.mentions(rhs, res) {
			return // wraps or joins the error: the failure is kept
		}
		clear := isNilExpr(s.info, rhs)
		for _, g := range guards {
			if s.excludesCancel(g, res, clear) {
				return
			}
		}
		if !clear && len(guards) > 0 {
			return // the overwrite happens only when something failed
		}
		var msg string
		if clear {
			msg = fmt.Sprintf("this deferred function sets %s to nil after %s has returned, so when %s returned a cancellation its caller sees success for work that was canceled", res.Name(), f.Name(), f.Name())
		} else {
			msg = fmt.Sprintf("this deferred function overwrites %s with %s after %s has returned, so a cancellation %s returned is replaced and, when %s succeeds, its caller sees success for work that was canceled",
				res.Name(), s.source(rhs), f.Name(), f.Name(), s.source(rhs))
		}
		d := analysis.Diagnostic{
			Pos: as.Pos(), End: as.End(), Message: msg,
			Related: []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: f.Name() + " may return a cancellation here"}},
		}
		if !clear {
			d.SuggestedFixes = s.keepFirstFix(lit, as, res, rhs)
		}
		s.rep.Report(d)
		return
	}
}

// keepFirstFix rewrites `err = x` into `if xErr := x; err == nil { err =
// xErr }`: the deferred call's error is reported only when nothing failed
// before it.
func (s *state) keepFirstFix(lit *ast.FuncLit, as *ast.AssignStmt, res *types.Var, rhs ast.Expr) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, as.Pos())
	scope := s.scopeAt(file, as.Pos())
	name := ""
	for _, n := range []string{"cerr", "deferErr", "errDefer"} {
		if scope == nil {
			break
		}
		if _, obj := scope.LookupParent(n, as.Pos()); obj == nil {
			name = n
			break
		}
	}
	if name == "" || len(as.Lhs) != 1 {
		return nil
	}
	text := fmt.Sprintf("if %s := %s; %s == nil {\n%s\t%s = %s\n%s}", name, s.source(rhs), res.Name(), s.indentAt(as.Pos()), res.Name(), name, s.indentAt(as.Pos()))
	return []analysis.SuggestedFix{{
		Message:   "Keep the first error: overwrite " + res.Name() + " only when it is nil",
		TextEdits: []analysis.TextEdit{{Pos: as.Pos(), End: as.End(), NewText: []byte(text)}},
	}}
}

// excludesCancel reports whether guard g, around an assignment to res,
// holds only when res is not a cancellation: it tests res for nil (`err ==
// nil`) or for a specific error other than the context's (errors.Is(err,
// io.EOF), err == sql.ErrNoRows, errors.As(err, &target)). For an
// overwrite, any test of res counts.
func (s *state) excludesCancel(g ast.Expr, res *types.Var, clear bool) bool {
	g = ast.Unparen(g)
	switch e := g.(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return s.excludesCancel(e.X, res, clear) || s.excludesCancel(e.Y, res, clear)
		case token.LOR:
			return s.excludesCancel(e.X, res, clear) && s.excludesCancel(e.Y, res, clear)
		case token.EQL:
			x, y := e.X, e.Y
			if !s.isVar(x, res) {
				x, y = y, x
			}
			return s.isVar(x, res) && ctxflow.ContextSentinel(s.info, y) == ""
		}
	case *ast.CallExpr:
		fn := analysisutil.Callee(s.info, e)
		if (analysisutil.IsFunc(fn, "errors", "Is") || analysisutil.IsFunc(fn, "errors", "As")) && len(e.Args) == 2 && s.mentions(e.Args[0], res) {
			return ctxflow.ContextSentinel(s.info, e.Args[1]) == ""
		}
	}
	return !clear && s.mentions(g, res)
}

func (s *state) isVar(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && s.info.Uses[id] == v
}

func (s *state) mentions(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && s.info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// carryingReturn returns a return statement of f (not of a literal in it)
// whose error result may carry cancellation: it returns such an error, or
// it is a bare return after the named result was assigned one.
func (s *state) carryingReturn(f *ctxflow.Func, res *types.Var, d *ast.DeferStmt) *ast.ReturnStmt {
	idx := analysisutil.ErrorResult(f.Sig)
	var found *ast.ReturnStmt
	assigned := false
	// Only a return that runs after the defer is registered is one the
	// deferred function can overwrite: `if found { return ctx.Err() }`
	// before `defer func() { ... err = nil }()` is not.
	g := s.graphs.Func(f.Node)
	var from flow.Point
	if g != nil {
		from, _ = g.Locate(d)
	}
	after := func(ret *ast.ReturnStmt) bool {
		if g == nil || !from.Valid() {
			return true
		}
		_, ok := g.Reaches(from, func(n ast.Node) bool { return n == ast.Node(ret) }, nil)
		return ok
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if ret, ok := n.(*ast.ReturnStmt); ok && !after(ret) {
			return true
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if s.isVar(lhs, res) {
					switch {
					case len(n.Rhs) == len(n.Lhs) && s.res.MayCarryCancel(n.Rhs[i]):
						assigned = true
					case len(n.Rhs) == 1:
						if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok && s.res.CallMayCarryCancel(call, i) {
							assigned = true
						}
					}
				}
			}
		case *ast.ReturnStmt:
			switch {
			case len(n.Results) == 0:
				if assigned {
					found = n
				}
			case len(n.Results) == f.Sig.Results().Len():
				if s.res.MayCarryCancel(n.Results[idx]) {
					found = n
				}
			case len(n.Results) == 1:
				if call, ok := ast.Unparen(n.Results[0]).(*ast.CallExpr); ok && s.res.CallMayCarryCancel(call, idx) {
					found = n
				}
			}
		}
		return true
	})
	return found
}
