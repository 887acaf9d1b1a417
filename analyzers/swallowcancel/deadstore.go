package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// checkDeadStore reports an error that may carry cancellation, assigned to
// a variable that is overwritten on every path before anything reads it
// (`total, err := l.sum(ctx); _, err = io.WriteString(w, line)`): the
// failure of the call is dropped as surely as with `_`, and the function
// goes on as if it had succeeded. Variables a function literal mentions, or
// whose address is taken, are left alone: something else may read them.
func (s *state) checkDeadStore(cur inspector.Cursor, as *ast.AssignStmt, call *ast.CallExpr) {
	sig, _ := s.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	if sig == nil || sig.Results().Len() != len(as.Lhs) {
		return
	}
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 {
		return
	}
	id, ok := ast.Unparen(as.Lhs[idx]).(*ast.Ident)
	if !ok || id.Name == "_" {
		return
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok || s.isCleanup(calleeShortName(s.info, call)) || !s.res.CallMayCarryCancel(call, idx) {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || s.quiet[f] || s.inTeardown(f) || v.Pos() < f.Node.Pos() || v.Pos() >= f.Node.End() || s.escapes(v) {
		return
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return
	}
	p, ok := g.Locate(as)
	if !ok {
		return
	}
	reads := func(n ast.Node) bool { return s.readsVar(n, v) }
	kills := func(n ast.Node) bool { return s.killsVar(n, v) }
	if _, read := g.Reaches(p.Next(), reads, kills); read {
		return
	}
	kill, ok := g.Reaches(p.Next(), kills, reads)
	if !ok {
		return // never read nor overwritten: the compiler's business, or a named result returned bare
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: id.Pos(), End: id.End(),
		Message: fmt.Sprintf("the error from %s may carry the cancellation of %s and is overwritten before it is read, so %s goes on as if the call had succeeded",
			types.ExprString(call.Fun), s.ctxFor(f, call), f.Name()),
		Related: []analysis.RelatedInformation{{Pos: kill.Node().Pos(), End: kill.Node().End(), Message: id.Name + " is overwritten here"}},
	})
}

// escapes reports whether v is mentioned in a function literal of f or has
// its address taken: reads the graph of f cannot see.
func (s *state) escapes(v *types.Var) bool {
	if e, ok := s.escaped[v]; ok {
		return e
	}
	e := s.computeEscapes(v)
	s.escaped[v] = e
	return e
}

func (s *state) computeEscapes(v *types.Var) bool {
	fn := s.res.EnclosingPos(v.Pos())
	if fn == nil {
		return true
	}
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			if s.mentions(n, v) {
				found = true
			}
			return false
		case *ast.UnaryExpr:
			if n.Op == token.AND && s.mentions(n.X, v) {
				found = true
			}
		}
		return !found
	})
	return found
}

// readsVar reports whether the graph node n reads v: it mentions v other
// than as a plain target of an assignment, or it is a bare return and v is
// a named result.
func (s *state) readsVar(n ast.Node, v *types.Var) bool {
	if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 0 {
		return true // it may be a named result: conservative
	}
	if as, ok := n.(*ast.AssignStmt); ok {
		for _, r := range as.Rhs {
			if s.mentions(r, v) {
				return true
			}
		}
		for _, l := range as.Lhs {
			if id, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.ObjectOf(id) == v {
				continue
			}
			if s.mentions(l, v) {
				return true
			}
		}
		return false
	}
	return flow.Mentions(n, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		return ok && s.info.Uses[id] == v
	})
}

// killsVar reports whether n assigns v without reading it.
func (s *state) killsVar(n ast.Node, v *types.Var) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN && as.Tok != token.DEFINE {
		return false
	}
	for _, r := range as.Rhs {
		if s.mentions(r, v) {
			return false
		}
	}
	for _, l := range as.Lhs {
		if id, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.ObjectOf(id) == v {
			return true
		}
	}
	return false
}
