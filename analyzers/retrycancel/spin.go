package retrycancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// spinArm returns a `case <-ctx.Done():` clause of a select of l (not of
// a nested loop: l.ownComms) that cannot leave the loop: every path from it goes back
// to the loop's head, and nothing on it waits. Once ctx has ended its
// receive is always ready, so every round takes it at once and the loop
// spins, running the clause over and over. Not a spin: a clause that
// waits for something else (a receive, a send, a select, a sleep, a
// Wait), a loop that reassigns the context or its Done channel (done =
// nil, ctx = next), a context made inside the loop.
func (st *state) spinArm(l *loop) (*ast.CommClause, ast.Expr) {
	g := st.graphs.Func(l.f.Node)
	if g == nil {
		return nil, nil
	}
	var head *cfg.Block
	var in []bool
	for _, cc := range l.ownComms {
		if cc.Comm == nil {
			continue
		}
		x := st.res.DoneContext(cc.Comm)
		if x == nil || st.res.Detached(x) {
			continue
		}
		if root := rootOf(st.info, x); root == nil || inside(root.Pos(), l.body) || st.assignedIn(l.body, root) {
			continue
		}
		if ch := analysisutil.Received(cc.Comm); ch != nil {
			if root := rootOf(st.info, ch); root != nil && st.assignedIn(l.body, root) {
				continue // done = nil: the loop stops listening
			}
		}
		if st.waits(cc.Body) {
			continue
		}
		body := caseBody(g.CFG, cc)
		if body == nil {
			continue
		}
		if head == nil {
			if head = g.LoopHead(l.stmt); head == nil {
				return nil, nil
			}
			in = g.LoopBlocks(head)
		}
		if !st.leavesLoop(g, l, cc, x, body, head, in) {
			return cc, x
		}
	}
	return nil, nil
}

// leavesLoop reports whether the case body b can leave the loop before
// the loop's select is back at cc: some path from b reaches a block
// outside the loop's blocks in or one that ends the function (a return, a
// panic; not the block after a select's last case, which stands for
// waiting forever), the head of a loop with a condition or a range (which
// can end there), or another look at the context (a ctx.Err() test at the
// top of the round, which the other rules judge). A path that comes back
// to the select without any of these is the next round, where the clause
// is ready again at once: another arm's way out (a return when a result
// arrives) does not stop the spin, it only ends it when that result comes.
//
// A look counts only when it is at a context that has ended once x has:
// x itself, or one made from it. A ctx.Err() test at the top of the round
// does not see that another context, c.Context, has ended (a client's
// own lifetime beside the request's): the clause on c.Context.Done() is
// then taken at once every round.
func (st *state) leavesLoop(g *flow.Graph, l *loop, cc *ast.CommClause, x ast.Expr, b, head *cfg.Block, in []bool) bool {
	sel, ok := g.Locate(cc.Comm)
	if !ok {
		return true
	}
	looks := map[int32]bool{}
	// other holds the blocks that end in a test of another context's end
	// (if ctx.Err() != nil): while that context lives the test is false,
	// and the round goes on along its false edge only.
	other := map[int32]bool{}
	for _, n := range l.obs {
		if n.Pos() >= cc.Comm.Pos() && n.End() <= cc.Comm.End() {
			continue // the clause's own receive
		}
		if y := st.lookedAt(n); y != nil && !st.res.EndsWith(y, x) {
			if e, ok := n.(ast.Expr); ok {
				if _, ok := st.res.CancelTestOf(e); ok {
					if p, ok := g.Locate(n); ok && len(p.Block.Nodes) > 0 && p.Block.Nodes[len(p.Block.Nodes)-1] == n && len(p.Block.Succs) == 2 {
						other[p.Block.Index] = true
					}
				}
			}
			continue // a look at another context
		}
		if p, ok := g.Locate(n); ok {
			looks[p.Block.Index] = true
		}
	}
	condHead := true
	if fs, ok := l.stmt.(*ast.ForStmt); ok && fs.Cond == nil {
		condHead = false
	}
	seen := make([]bool, len(in))
	stack := []*cfg.Block{b}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x.Index] {
			continue
		}
		seen[x.Index] = true
		if len(x.Succs) == 0 && x.Kind == cfg.KindSelectAfterCase {
			continue // no case ready: the select waits forever
		}
		if !in[x.Index] || len(x.Succs) == 0 || looks[x.Index] || x == head && condHead {
			return true
		}
		if x == sel.Block && x != b {
			continue // back at the select: the clause is taken again
		}
		if other[x.Index] {
			stack = append(stack, x.Succs[1])
			continue
		}
		stack = append(stack, x.Succs...)
	}
	return false
}

// lookedAt returns the context a look of the loop (l.obs) is at, when it
// is written there: ctx in ctx.Err(), ctx.Done(), context.Cause(ctx), or
// a cancellation test of ctx.Err(); nil when it is not known.
func (st *state) lookedAt(n ast.Node) ast.Expr {
	switch n := n.(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(st.info, n)
		switch {
		case analysisutil.IsMethod(fn, "context", "Context", "Err"), analysisutil.IsMethod(fn, "context", "Context", "Done"):
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				return sel.X
			}
		case analysisutil.IsFunc(fn, "context", "Cause") && len(n.Args) == 1:
			return n.Args[0]
		}
	case ast.Expr:
		if t, ok := st.res.CancelTestOf(n); ok && t.Ctx != nil {
			return t.Ctx
		}
	}
	return nil
}

// assignedIn reports whether body assigns obj.
func (st *state) assignedIn(body *ast.BlockStmt, obj types.Object) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && st.info.ObjectOf(id) == obj {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// waits reports whether list waits for something: a channel operation, a
// select, a sleep (time.Sleep or a helper with the Sleeps fact), or the
// Wait of a sync.WaitGroup, sync.Cond or errgroup.Group.
func (st *state) waits(list []ast.Stmt) bool {
	found := false
	for _, s := range list {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SendStmt, *ast.SelectStmt:
				found = true
			case *ast.UnaryExpr:
				found = found || n.Op == token.ARROW
			case *ast.RangeStmt:
				_, isChan := st.info.TypeOf(n.X).Underlying().(*types.Chan)
				found = found || isChan
			case *ast.CallExpr:
				fn := analysisutil.Callee(st.info, n)
				found = found || analysisutil.IsFunc(fn, "time", "Sleep") || st.res.Sleeps(fn) ||
					analysisutil.IsMethod(fn, "sync", "WaitGroup", "Wait") || analysisutil.IsMethod(fn, "sync", "Cond", "Wait") ||
					analysisutil.IsMethod(fn, "golang.org/x/sync/errgroup", "Group", "Wait")
			}
			return !found
		})
	}
	return found
}

// reportSpin reports the clause spinArm found, with a fix that returns
// from the function at its end.
func (st *state) reportSpin(l *loop, cc *ast.CommClause, x ast.Expr) {
	ctxExpr := types.ExprString(x)
	d := analysis.Diagnostic{
		Pos: cc.Pos(), End: cc.Colon + 1,
		Message: fmt.Sprintf("this case <-%s.Done() does not leave the loop %s: once %s is done its receive is always ready, so the select never waits again and the loop spins, running this case over and over; leave the loop here",
			ctxExpr, l.where(), ctxExpr),
	}
	if e := st.env(l, cc.Pos(), ctxExpr, rootOf(st.info, x)); e != nil {
		if ret, ok := st.ret(l, e, e.cause); ok {
			in := e.indent(st, cc.Pos()) + "\t"
			edits := e.edits
			if ret == "return" {
				edits = nil // the cause is not spelled: no import needed
			}
			var edit analysis.TextEdit
			if n := len(cc.Body); n > 0 && isBranch(cc.Body[n-1]) {
				// case <-ctx.Done(): break (or continue): the branch is what
				// keeps the loop going; the return takes its place.
				last := cc.Body[n-1]
				edit = analysis.TextEdit{Pos: last.Pos(), End: last.End(), NewText: []byte(ret)}
			} else {
				pos := cc.Colon + 1
				if n > 0 {
					pos = cc.Body[n-1].End()
				}
				if tf := st.pass.Fset.File(pos); tf != nil && tf.Line(pos) < tf.LineCount() {
					pos = tf.LineStart(tf.Line(pos)+1) - 1 // after a trailing comment
				}
				edit = analysis.TextEdit{Pos: pos, End: pos, NewText: []byte("\n" + in + ret)}
			}
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Return once the context is done",
				TextEdits: append(edits, edit),
			}}
		}
	}
	st.rep.Report(d)
}

// isBranch reports whether s is an unlabelled break or a continue: the
// statements that end a spinning case without leaving the loop.
func isBranch(s ast.Stmt) bool {
	br, ok := s.(*ast.BranchStmt)
	return ok && (br.Tok == token.BREAK && br.Label == nil || br.Tok == token.CONTINUE)
}
