package retrycancel

import (
	"fmt"
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// checkRecursion reports a retry written as recursion: a function with a
// context in reach that, after a context-bound call of its own fails,
// waits (time.Sleep, <-time.After, a sleeping helper) and calls itself
// again, on a path with no look at the context (the body is the loop, the
// call its back edge). Once the context is canceled every
// attempt fails at once and the recursion goes on, sleeping or not, until
// its attempts run out or the stack does. The path is taken as the
// failure makes it: branches taken only on success, or for another
// specific error, are not followed; a recursion on success (a walk over a
// tree) or without a wait (a CNAME chase, a one-off repair) is no retry.
func (st *state) checkRecursion(f *ctxflow.Func) {
	if f.Obj == nil || !f.HasContext() {
		return
	}
	var bound, self []*ast.CallExpr
	var obs []ast.Node
	var sleeps []*ast.ExprStmt
	ast.Inspect(f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			if _, ok := st.sleepStmt(n); ok {
				sleeps = append(sleeps, n)
			}
		case *ast.CallExpr:
			fn := analysisutil.Callee(st.info, n)
			switch {
			case fn == nil:
				if st.errorMayCarryCancel(n) {
					bound = append(bound, n) // a function value given the context
				}
			case fn.Origin() == f.Obj.Origin():
				self = append(self, n)
			case analysisutil.IsMethod(fn, "context", "Context", "Err"),
				analysisutil.IsMethod(fn, "context", "Context", "Done"),
				analysisutil.IsFunc(fn, "context", "Cause"),
				st.res.ChecksContext(fn) && ctxflow.ReturnsBool(fn):
				obs = append(obs, n)
			case st.errorMayCarryCancel(n):
				bound = append(bound, n)
			}
		}
		return true
	})
	if len(self) == 0 || len(bound) == 0 || len(sleeps) == 0 {
		return // a retry backs off; a recursion without a wait is a walk
	}
	g := st.graphs.Func(f.Node)
	if g == nil {
		return
	}
	l := &loop{stmt: f.Body, body: f.Body, f: f, bound: bound}
	defer st.judging(l)()
	isObs := func(n ast.Node) bool {
		for _, o := range obs {
			if n.Pos() <= o.Pos() && o.End() <= n.End() {
				return true
			}
		}
		return false
	}
	isSelf := func(n ast.Node) bool {
		for _, c := range self {
			if n.Pos() <= c.Pos() && c.End() <= n.End() {
				return true
			}
		}
		return false
	}
	failing := func(b *cfg.Block, i int) bool {
		if len(b.Succs) != 2 || len(b.Nodes) == 0 {
			return true
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok {
			return true
		}
		switch st.classify(cond, i == 0) {
		case guardSuccess, guardSpecific:
			return false
		}
		return true
	}
	for _, b := range bound {
		p, ok := g.Locate(b)
		if !ok || isSelf(p.Node()) {
			continue
		}
		if isObs(p.Node()) {
			continue
		}
		// The failing path waits, then calls itself: a backoff and a retry.
		var q flow.Point
		found := false
		for _, sl := range sleeps {
			sp, ok := g.Locate(sl)
			if !ok {
				continue
			}
			if _, ok := g.ReachesEdges(p.Next(), func(n ast.Node) bool { return n == sl }, isObs, failing); !ok {
				continue
			}
			if q, ok = g.ReachesEdges(sp.Next(), isSelf, isObs, failing); ok {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		ctxExpr, _ := st.loopContext(l)
		if ctxExpr == "" {
			return
		}
		st.rep.Report(analysis.Diagnostic{
			Pos: q.Node().Pos(), End: q.Node().End(),
			Message: fmt.Sprintf("%s calls itself again after %s fails without checking %s: a retry by recursion, so once %s is canceled every attempt fails at once and the recursion goes on until its attempts or the stack run out",
				f.Name(), calleeName(st.info, b), ctxExpr, ctxExpr),
			Related: []analysis.RelatedInformation{{Pos: b.Pos(), End: b.End(), Message: "the attempt that fails"}},
		})
		return
	}
}
