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

// checkGuardExit reports a loop guarded by `X.Err() == nil` (alone or as
// a conjunct of its condition) whose exit, taken once X is done, reaches
// the caller as a complete answer, with no look at X on the way:
//
//	for ctx.Err() == nil { // false once ctx is done
//		page, err := list(ctx, off)
//		...
//	}
//	return out, nil // a list cut short, with no error
//
// In an iterator (a literal taking yield func(T, error) bool) the
// sequence ends without yielding X's error. A function whose only result
// is its error may end quietly on its context's end (a worker's Run): it
// hands back no partial answer and is not reported.
func (s *state) checkGuardExit(cur inspector.Cursor, loop *ast.ForStmt) {
	x, guard := s.liveGuard(loop.Cond)
	if x == nil {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || s.quiet[f] || s.groupGoroutine(f) {
		return
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return
	}
	p, ok := g.LoopDone(loop)
	if !ok {
		return
	}
	looks := func(n ast.Node) bool { return s.res.ChecksCancel(n) }
	xs := s.source(x)
	if yield := yieldParam(s.info, f.Node); yield != nil {
		yields := func(n ast.Node) bool {
			return looks(n) || flow.Mentions(n, func(m ast.Node) bool {
				id, ok := m.(*ast.Ident)
				return ok && s.info.Uses[id] == yield
			})
		}
		exit, ok := g.ExitAvoiding(p, yields)
		if !ok {
			return
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: guard.Pos(), End: guard.End(),
			Message: fmt.Sprintf("the loop ends when %s is done and the sequence then ends without yielding %s.Err(): callers cannot tell a sequence cut short by cancellation from a complete one",
				xs, xs),
			Related: []analysis.RelatedInformation{{Pos: exit.Pos(f.Body), Message: "the sequence ends here"}},
		})
		return
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 || f.Sig.Results().Len() < 2 {
		return
	}
	partial := func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != f.Sig.Results().Len() || !isNilExpr(s.info, ret.Results[idx]) {
			return false
		}
		for i, r := range ret.Results {
			if i != idx && !s.zeroExpr(r) {
				return true
			}
		}
		return false
	}
	q, ok := g.Reaches(p, partial, looks)
	if !ok {
		return
	}
	ret := q.Node().(*ast.ReturnStmt)
	s.rep.Report(analysis.Diagnostic{
		Pos: guard.Pos(), End: guard.End(),
		Message: fmt.Sprintf("the loop ends when %s is done and %s then returns its results with a nil error: callers take what it gathered so far for a complete answer after %s is canceled",
			xs, f.Name(), xs),
		Related: []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the partial results are returned as complete here"}},
		SuggestedFixes: []analysis.SuggestedFix{{
			Message:   "Return the context's error",
			TextEdits: []analysis.TextEdit{{Pos: ret.Results[idx].Pos(), End: ret.Results[idx].End(), NewText: []byte(xs + ".Err()")}},
		}},
	})
}

// liveGuard returns the context X and the test when cond is `X.Err() ==
// nil` or a conjunction holding it: the loop runs only while X lives.
func (s *state) liveGuard(cond ast.Expr) (ast.Expr, ast.Expr) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return nil, nil
	}
	switch b.Op {
	case token.LAND:
		if x, t := s.liveGuard(b.X); x != nil {
			return x, t
		}
		return s.liveGuard(b.Y)
	case token.EQL:
		for _, pair := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
			if isNilExpr(s.info, pair[1]) {
				if y := ctxOfErr(s.info, pair[0]); y != nil {
					return y, b
				}
			}
		}
	}
	return nil, nil
}

// yieldParam returns the yield parameter of fn when fn is an iterator
// body of an iter.Seq2[T, error]: a literal whose only parameter is a
// func(T, error) bool.
func yieldParam(info *types.Info, fn ast.Node) *types.Var {
	lit, ok := fn.(*ast.FuncLit)
	if !ok || len(lit.Type.Params.List) != 1 || len(lit.Type.Params.List[0].Names) != 1 {
		return nil
	}
	v, ok := info.Defs[lit.Type.Params.List[0].Names[0]].(*types.Var)
	if !ok {
		return nil
	}
	sig, ok := v.Type().Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 2 || sig.Results().Len() != 1 || !analysisutil.IsError(sig.Params().At(1).Type()) {
		return nil
	}
	return v
}

// checkIterCancel reports, in an iterator body (a literal taking yield
// func(T, error) bool), a branch on the end of a context that ends the
// sequence without yielding the error: `if ctx.Err() != nil { return }`
// between pages. The caller's range loop finishes as if the sequence were
// complete.
func (s *state) checkIterCancel(f *ctxflow.Func, n *ast.IfStmt, t ctxflow.CancelTest) {
	yield := yieldParam(s.info, f.Node)
	if yield == nil || t.Ctx == nil || len(n.Body.List) == 0 || s.iterCancel[f] {
		return
	}
	ret, ok := n.Body.List[len(n.Body.List)-1].(*ast.ReturnStmt)
	if !ok {
		return
	}
	if flow.Mentions(n.Body, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		return ok && s.info.Uses[id] == yield
	}) {
		return // it yields something first
	}
	s.iterCancel[f] = true // one finding per sequence
	xs := s.source(t.Ctx)
	s.rep.Report(analysis.Diagnostic{
		Pos: n.Pos(), End: n.Cond.End(),
		Message: fmt.Sprintf("when %s is done this branch ends the sequence without yielding %s.Err(): callers cannot tell a sequence cut short by cancellation from a complete one",
			xs, xs),
		Related: []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the sequence ends here"}},
	})
}
