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
)

// checkShadow reports an error that a function literal with no error
// result declares with := over an error variable of the function around
// it, when that function tests the outer variable after the literal and
// the literal never sets it: the goroutine or callback meant to report
// through the outer variable, and the cancellation the inner one may carry
// never reaches the test, so the function goes on as if the work had
// succeeded.
//
//	var err error
//	go func() {
//		defer close(done)
//		raw, err := c.Do(ctx, req) // reported: shadows Post's err
//		if err != nil {
//			return
//		}
//		resp = decode(raw)
//	}()
//	<-done
//	if err != nil { ... } // always nil
//
// The inner variable must stay in the literal: its uses are comparisons
// with nil and arguments of log calls (a value handed on, sent or stored is
// reported elsewhere, or not lost).
func (s *state) checkShadow(cur inspector.Cursor, as *ast.AssignStmt, call *ast.CallExpr) {
	if as.Tok != token.DEFINE || len(as.Rhs) != 1 {
		return
	}
	sig, _ := s.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	if sig == nil || sig.Results().Len() != len(as.Lhs) {
		return
	}
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 {
		return
	}
	id, ok := as.Lhs[idx].(*ast.Ident)
	if !ok || id.Name == "_" {
		return
	}
	inner, ok := s.info.Defs[id].(*types.Var)
	if !ok || inner == nil {
		return // not a new variable: `=` semantics for this one
	}
	f := s.res.Enclosing(cur)
	if f == nil || !s.res.CallMayCarryCancel(call, idx) || s.isCleanup(calleeShortName(s.info, call)) {
		return
	}
	scope := inner.Parent()
	if scope == nil || scope.Parent() == nil {
		return
	}
	_, obj := scope.Parent().LookupParent(id.Name, scope.Pos())
	outer, ok := obj.(*types.Var)
	if !ok || outer.Parent() == nil || outer.Parent() == s.pass.Pkg.Scope() || !analysisutil.IsError(outer.Type()) {
		return
	}
	var owner string
	if lit, ok := f.Node.(*ast.FuncLit); ok && s.info.Scopes[lit.Type] == scope {
		// A literal's own variable over one of the function around it.
		around := f.Parent
		if around == nil || analysisutil.ErrorResult(f.Sig) >= 0 || !declaredIn(outer, around) {
			return
		}
		if s.assignedIn(lit, outer) || !s.readLater(around, lit, outer) || !s.staysInside(lit.Body, inner, true) {
			return
		}
		owner = funcName(around, "the function around it")
		ctx := s.ctxFor(f, call)
		s.reportShadow(as, id, call, fmt.Sprintf("%s declared here shadows the %s of %s, which %s tests after this literal: the error of %s, which may carry the cancellation of %s, never reaches that test, so %s goes on as if the work had succeeded",
			id.Name, id.Name, owner, owner, calleeName(call), orCaller(ctx), owner), owner)
		return
	}
	// A block's variable (a loop body, an if) over one of the same
	// function, whose value is only tested: `_, err := f(ctx)` in a retry
	// loop that breaks out to `if err != nil { return err }`.
	if !declaredIn(outer, f) || outer.Pos() >= scope.Pos() {
		return
	}
	block := blockOf(f.Body, scope)
	if block == nil || s.assignedIn(block, outer) || !s.readLater(f, as, outer) || !s.staysInside(block, inner, false) {
		return
	}
	owner = funcName(f, "the function")
	ctx := s.ctxFor(f, call)
	s.reportShadow(as, id, call, fmt.Sprintf("%s declared here shadows the %s declared outside this block, which %s tests after it: the error of %s, which may carry the cancellation of %s, never reaches that test, so %s goes on as if the work had succeeded",
		id.Name, id.Name, owner, calleeName(call), orCaller(ctx), owner), owner)
}

func (s *state) reportShadow(as *ast.AssignStmt, id *ast.Ident, call *ast.CallExpr, msg, owner string) {
	d := analysis.Diagnostic{Pos: id.Pos(), End: id.End(), Message: msg}
	if s.onlyNewName(as, id) {
		// raw, err := ... with raw declared elsewhere is not mechanical;
		// err := ... alone (or beside _) becomes err = ....
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   fmt.Sprintf("assign %s's %s instead of declaring a new one", owner, id.Name),
			TextEdits: []analysis.TextEdit{{Pos: as.TokPos, End: as.TokPos + token.Pos(len(":=")), NewText: []byte("=")}},
		}}
	}
	s.rep.Report(d)
}

func funcName(f *ctxflow.Func, anon string) string {
	if f.Obj != nil {
		return f.Obj.Name()
	}
	return anon
}

// declaredIn reports whether v is a parameter or a local of f.
func declaredIn(v *types.Var, f *ctxflow.Func) bool {
	return f.Type != nil && f.Type.Pos() <= v.Pos() && v.Pos() < f.Body.End()
}

// blockOf returns the statement or block of body whose scope is scope (a
// block, an if, for, range, switch or case clause).
func blockOf(body *ast.BlockStmt, scope *types.Scope) ast.Node {
	var found ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil || n == nil {
			return false
		}
		if n.Pos() == scope.Pos() && n.End() == scope.End() {
			switch n.(type) {
			case *ast.BlockStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.CaseClause, *ast.CommClause:
				found = n
				return false
			}
		}
		return n.Pos() <= scope.Pos() && scope.End() <= n.End()
	})
	return found
}

// onlyNewName reports whether id is the only variable as declares.
func (s *state) onlyNewName(as *ast.AssignStmt, id *ast.Ident) bool {
	for _, l := range as.Lhs {
		if l, ok := l.(*ast.Ident); ok && l != id && l.Name != "_" && s.info.Defs[l] != nil {
			return false
		}
	}
	return true
}

// assignedIn reports whether n assigns v anywhere (or takes its address).
func (s *state) assignedIn(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.Uses[id] == v {
					found = true
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(m.X).(*ast.Ident); ok && m.Op == token.AND && s.info.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// readLater reports whether some path of f's graph from the top-level
// node holding at reaches a read of v (readsVar) before an assignment
// overwrites it (killsVar): the value v holds there is used.
func (s *state) readLater(f *ctxflow.Func, at ast.Node, v *types.Var) bool {
	g := s.graphs.Func(f.Node)
	if g == nil {
		return false
	}
	p, ok := g.Locate(at)
	if !ok {
		return false
	}
	result := false // a bare return reads v only when v is a named result
	for i := range f.Sig.Results().Len() {
		result = result || f.Sig.Results().At(i) == v
	}
	reads := func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 0 {
			return result
		}
		return s.readsVar(n, v)
	}
	_, read := g.Reaches(p.Next(), reads, func(n ast.Node) bool { return s.killsVar(n, v) })
	return read
}

// staysInside reports whether every use of v in n is a comparison with
// nil, the first argument of errors.Is or errors.As, or (when logs is set)
// an argument of a log call.
func (s *state) staysInside(n ast.Node, v *types.Var, logs bool) bool {
	ok := true
	var stack []ast.Node
	ast.Inspect(n, func(m ast.Node) bool {
		if m == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, m)
		id, isID := m.(*ast.Ident)
		if !isID || s.info.Uses[id] != v || len(stack) < 2 {
			return ok
		}
		switch p := stack[len(stack)-2].(type) {
		case *ast.BinaryExpr:
			if (p.Op == token.EQL || p.Op == token.NEQ) && (isNilExpr(s.info, p.X) || isNilExpr(s.info, p.Y)) {
				return ok
			}
		case *ast.CallExpr:
			fn := analysisutil.Callee(s.info, p)
			if (analysisutil.IsFunc(fn, "errors", "Is") || analysisutil.IsFunc(fn, "errors", "As")) && len(p.Args) > 0 && p.Args[0] == ast.Expr(id) {
				return ok
			}
			if logs && analysisutil.IsLogCall(s.info, p) {
				return ok
			}
		}
		ok = false
		return ok
	})
	return ok
}
