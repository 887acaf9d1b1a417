package retrycancel

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// observeRounds decides, for a loop that looks at its context somewhere
// (l.obs, gathered by scan), whether it stops once the context has ended:
// whether some round, a path from the loop's head back to it that calls a
// bound function or waits, can still be taken after the end. It overrides
// the verdict of judgeExits for such loops, since it asks the same question
// of the control flow rather than of the exits' shapes.
//
// The rounds are those the loop can go after the end, when every bound call
// fails with the context's error:
//
//   - a condition that holds once the context has ended (ctx.Err() != nil,
//     a variable assigned it) takes its then branch, one that holds while
//     it lives (ctx.Err() == nil) its else branch;
//   - a branch taken only on success (err == nil) or for another specific
//     error (errors.Is(err, ErrBusy)) is not taken;
//   - a test of the error by an unknown classifier (!retryable(err)) whose
//     other branch leaves the loop is assumed to leave (precision first);
//   - a select whose `case <-ctx.Done():` arm leaves the loop leaves, and a
//     bare `<-ctx.Done()` waits for the end; a look at the context whose
//     meaning is unknown (a helper's bool) leaves when its block has a
//     successor outside the loop.
//
// A Done arm with an empty body or an unlabelled break (which leaves only
// the select), a check that is logged but not acted on, and a `continue`
// routed around the check all leave such a round open.
func (st *state) observeRounds(l *loop) {
	if len(l.obs) == 0 || l.observes {
		return // no look at the context, or a sentinel test that leaves
	}
	defer st.judging(l)()
	observed := func() { l.checked, l.observes = true, true }
	g := st.graphs.Func(l.f.Node)
	if g == nil {
		observed()
		return
	}
	head := g.LoopHead(l.stmt)
	if head == nil {
		observed()
		return
	}
	in := g.LoopBlocks(head)
	if !in[head.Index] {
		observed() // the loop never goes round
		return
	}
	comms := map[ast.Node]*ast.CommClause{}
	for _, cc := range l.comms {
		comms[cc.Comm] = cc
	}
	deciding := map[int32]bool{}
	for _, n := range l.obs {
		p, ok := g.Locate(n)
		if !ok {
			continue
		}
		b := p.Block
		switch top := p.Node().(type) {
		case ast.Stmt:
			if cc := comms[top]; cc != nil {
				if body := caseBody(g.CFG, cc); body != nil && !in[body.Index] {
					deciding[b.Index] = true
				}
				continue
			}
			if es, ok := top.(*ast.ExprStmt); ok && st.isDoneRecv(es.X) {
				deciding[b.Index] = true // waits for the end
			}
		case ast.Expr:
			if p.Index != len(b.Nodes)-1 || st.whenEnded(top) != unknown {
				continue // not a condition, or one feasible below decides
			}
			if _, isTest := st.res.CancelTestOf(top); isTest {
				continue // a test for one kind of end: both branches may run
			}
			for _, s := range b.Succs {
				if !in[s.Index] {
					deciding[b.Index] = true
				}
			}
		}
	}
	// Rounds that do work: blocks holding a bound call or a wait.
	work := workBlocks(g, l)
	var need func(*cfg.Block) bool
	if len(work) > 0 {
		need = func(b *cfg.Block) bool { return work[b.Index] }
	}
	feasible := st.feasibleUnderCancel(in)
	if cleared := st.clearedBranches(g, l, head, in, feasible); len(cleared) > 0 {
		base := feasible
		feasible = func(b *cfg.Block, i int) bool { return base(b, i) && !cleared[edge{b.Index, i}] }
	}
	l.checked, l.observes, l.skipPos = false, false, token.NoPos
	round, ok := g.CycleAvoiding(head, func(b *cfg.Block) bool { return deciding[b.Index] }, need, feasible)
	if !ok {
		observed()
		return
	}
	// Does the round pass a look at the context at all (one that does not
	// act on every end), or route around every look?
	looks := map[int32]bool{}
	for _, n := range l.obs {
		if p, ok := g.Locate(n); ok {
			looks[p.Block.Index] = true
		}
	}
	for _, b := range round {
		if looks[b.Index] {
			l.looksNotActs = true
		}
	}
	l.skipPos = l.stmt.Pos()
	for i := len(round) - 1; i >= 0; i-- {
		if nodes := round[i].Nodes; len(nodes) > 0 {
			l.skipPos = nodes[len(nodes)-1].Pos()
			break
		}
	}
}

// feasibleUnderCancel returns the edge filter of the rounds a loop (whose
// blocks in marks) can go once its context has ended and every bound call
// fails with the context's error.
func (st *state) feasibleUnderCancel(in []bool) func(b *cfg.Block, i int) bool {
	return func(b *cfg.Block, i int) bool {
		if len(b.Succs) != 2 || len(b.Nodes) == 0 {
			return true
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
		if !ok {
			return true
		}
		switch st.whenEnded(cond) {
		case holds:
			return i == 0
		case fails:
			return i == 1
		}
		switch st.classify(cond, i == 0) {
		case guardSuccess, guardSpecific:
			return false
		}
		if _, isTest := st.res.CancelTestOf(cond); isTest || cancelTest(st.info, cond) || st.checksCtx(cond) {
			return true
		}
		other := b.Succs[1-i]
		if in[b.Succs[i].Index] && !in[other.Index] && st.mentionsCarrier(cond) && st.classify(cond, i != 0) == guardFinal {
			return false // an unknown classifier: assume it leaves
		}
		return true
	}
}

// specificRounds marks as checked a loop that does not look at its context
// but can only go round for errors that are not the context's: every round
// that does work passes a branch taken on success or on a specific other
// error (errors.As(err, &pgErr) && pgErr.Code == "40P01", errors.Is(err,
// ErrBusy)). Once the context has ended its calls fail with the context's
// error, no such branch is taken, and the loop leaves at the next failure:
// it does not keep trying, and only a wait already under way is at stake.
func (st *state) specificRounds(l *loop) {
	if l.checked || l.observes || len(l.obs) > 0 || len(l.bound) == 0 {
		return
	}
	defer st.judging(l)()
	g := st.graphs.Func(l.f.Node)
	if g == nil {
		return
	}
	head := g.LoopHead(l.stmt)
	if head == nil {
		return
	}
	in := g.LoopBlocks(head)
	if !in[head.Index] {
		return
	}
	work := workBlocks(g, l)
	if len(work) == 0 {
		return
	}
	if _, ok := g.CycleAvoiding(head, func(*cfg.Block) bool { return false }, func(b *cfg.Block) bool { return work[b.Index] }, st.feasibleUnderCancel(in)); !ok {
		l.checked = true
	}
}

// tri is what a condition is once the context has ended.
type tri int

const (
	unknown tri = iota
	holds
	fails
)

// whenEnded says whether cond holds once the loop's context has ended:
// ctx.Err() != nil (or a variable assigned it) holds, ctx.Err() == nil
// fails, and !, && and || combine them; anything else is unknown, and so is
// a test for one kind of end only (errors.Is(err, context.Canceled) fails
// on a deadline).
func (st *state) whenEnded(cond ast.Expr) tri {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			switch st.whenEnded(c.X) {
			case holds:
				return fails
			case fails:
				return holds
			}
			return unknown
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND, token.LOR:
			x, y := st.whenEnded(c.X), st.whenEnded(c.Y)
			short, long := fails, holds // &&: one false makes it false
			if c.Op == token.LOR {
				short, long = holds, fails
			}
			switch {
			case x == short || y == short:
				return short
			case x == long && y == long:
				return long
			}
			return unknown
		case token.EQL:
			x, y := c.X, c.Y
			if st.isNil(x) {
				x, y = y, x
			}
			if st.isNil(y) && st.res.CtxErrOf(x) != nil {
				return fails
			}
		}
	}
	if t, ok := st.res.CancelTestOf(cond); ok && t.Ctx != nil && t.Canceled && t.Deadline {
		return holds
	}
	return unknown
}

// caseBody returns the block of the body of select clause cc.
func caseBody(g *cfg.CFG, cc *ast.CommClause) *cfg.Block {
	for _, b := range g.Blocks {
		if b.Kind == cfg.KindSelectCaseBody && b.Stmt == cc {
			return b
		}
	}
	return nil
}

// isDoneRecv reports whether e is `<-x.Done()` for a context x.
func (st *state) isDoneRecv(e ast.Expr) bool {
	return st.res.DoneContext(&ast.ExprStmt{X: e}) != nil
}

// workBlocks returns the blocks of g that hold one of l's bound calls or
// waits: a round that passes one does work.
func workBlocks(g *flow.Graph, l *loop) map[int32]bool {
	work := map[int32]bool{}
	mark := func(n ast.Node) {
		if p, ok := g.Locate(n); ok {
			work[p.Block.Index] = true
		}
	}
	for _, c := range l.bound {
		mark(c)
	}
	for _, s := range l.sleeps {
		mark(s.stmt)
	}
	return work
}

// edge is a branch of a block: the block's index and its successor's.
type edge struct {
	block int32
	succ  int
}

// clearedBranches returns the branches of nil tests in the loop that no
// round can take twice in a row: the branch where x is non-nil (`if
// c.current != nil`, the else of `c.current == nil`) when the loop assigns
// x only nil, every round through that branch assigns it, and nothing
// else in the loop can set it (no assignment to a prefix of x's path, no
// call through one, no address taken). The round after such a round takes
// the other branch: when that one looks at the context, a failure cannot
// go round unchecked forever (openfga's channel iterator drops a done
// iterator, c.current = nil, and the next round selects on ctx.Done()).
func (st *state) clearedBranches(g *flow.Graph, l *loop, head *cfg.Block, in []bool, feasible func(*cfg.Block, int) bool) map[edge]bool {
	var out map[edge]bool
	for _, b := range g.CFG.Blocks {
		if !in[b.Index] || len(b.Succs) != 2 || len(b.Nodes) == 0 {
			continue
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(*ast.BinaryExpr)
		if !ok || cond.Op != token.EQL && cond.Op != token.NEQ {
			continue
		}
		x := cond.X
		if st.isNil(x) {
			x = cond.Y
		} else if !st.isNil(cond.Y) {
			continue
		}
		nonNil := 1 // x == nil: the else branch
		if cond.Op == token.NEQ {
			nonNil = 0
		}
		assigns, others, ok := st.nilAssigns(g, l, x)
		if !ok || len(assigns) == 0 {
			continue
		}
		succ := b.Succs[nonNil]
		if reachesBefore(succ, head, in, others) {
			continue // the round may set x again after clearing it
		}
		if _, repeats := g.CycleAvoiding(head, func(c *cfg.Block) bool { return assigns[c.Index] },
			func(c *cfg.Block) bool { return c == succ }, feasible); repeats {
			continue
		}
		if out == nil {
			out = make(map[edge]bool)
		}
		out[edge{b.Index, nonNil}] = true
	}
	return out
}

// reachesBefore reports whether a block in targets is reachable from b
// within the loop (the blocks in in) without going through head.
func reachesBefore(b, head *cfg.Block, in []bool, targets map[int32]bool) bool {
	seen := map[int32]bool{}
	stack := []*cfg.Block{b}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == head || !in[c.Index] || seen[c.Index] {
			continue
		}
		seen[c.Index] = true
		if targets[c.Index] {
			return true
		}
		stack = append(stack, c.Succs...)
	}
	return false
}

// nilAssigns returns the blocks of the loop that assign nil to the access
// path x and those that assign it anything else, and whether that is all
// the loop does to it: no assignment to a prefix of it, no address of one
// taken, no call through a prefix (a method of c may set c.current) or
// with one as an argument, no function literal mentioning one.
func (st *state) nilAssigns(g *flow.Graph, l *loop, x ast.Expr) (nils, others map[int32]bool, ok bool) {
	var prefixes []ast.Expr // x's proper prefixes: c for c.current
	for e := ast.Unparen(x); ; {
		sel, isSel := e.(*ast.SelectorExpr)
		if !isSel {
			if _, isID := e.(*ast.Ident); !isID {
				return nil, nil, false
			}
			break
		}
		e = ast.Unparen(sel.X)
		prefixes = append(prefixes, e)
	}
	isPrefix := func(e ast.Expr) bool {
		for _, p := range prefixes {
			if analysisutil.SamePath(st.info, e, p) {
				return true
			}
		}
		return false
	}
	nils, others, ok = map[int32]bool{}, map[int32]bool{}, true
	ast.Inspect(l.body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = !flow.Mentions(n, func(m ast.Node) bool {
				e, isExpr := m.(ast.Expr)
				return isExpr && (analysisutil.SamePath(st.info, e, x) || isPrefix(e))
			})
			return false
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				switch {
				case isPrefix(lhs):
					ok = false
				case analysisutil.SamePath(st.info, lhs, x):
					p, located := g.Locate(n)
					switch {
					case !located:
						ok = false
					case len(n.Lhs) == len(n.Rhs) && st.isNil(n.Rhs[i]):
						nils[p.Block.Index] = true
					default:
						others[p.Block.Index] = true
					}
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND && (analysisutil.SamePath(st.info, n.X, x) || isPrefix(n.X)) {
				ok = false
			}
		case *ast.CallExpr:
			if sel, isSel := ast.Unparen(n.Fun).(*ast.SelectorExpr); isSel && isPrefix(sel.X) {
				ok = false
			}
			for _, a := range n.Args {
				if isPrefix(a) || analysisutil.SamePath(st.info, a, x) {
					ok = false
				}
			}
		}
		return ok
	})
	return nils, others, ok
}
