package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// deferredInLoop returns the defer statement of the loop's body (not of a
// function literal in it) that releases the lease acquired in the loop,
// when nothing else in the body releases it or hands it off: the deferred
// call runs when the function returns, not at the end of the round, so
// every round keeps its lease until then, and rounds pile them up (files
// and connections stay open, cancel functions and their timers live on).
func (l *lease) deferredInLoop(loop ast.Stmt) *ast.DeferStmt {
	var body *ast.BlockStmt
	switch s := loop.(type) {
	case *ast.ForStmt:
		body = s.Body
		if s.Cond != nil && (s.Init != nil || s.Post != nil) && !l.holdsDescriptor() {
			return nil // a counted loop: its cancel functions are bounded by its count
		}
	case *ast.RangeStmt:
		body = s.Body
		if !l.holdsDescriptor() {
			// One cancel function or timer per element, all released at
			// return: bounded by the collection, and each round's work is
			// usually done when the next starts. Files, bodies and
			// connections run out long before the collection does.
			return nil
		}
	default:
		return nil
	}
	if l.onceArm(loop) {
		return nil
	}
	own := l.f.s.own
	var ds *ast.DeferStmt
	other := false
	ast.Inspect(body, func(n ast.Node) bool {
		if other {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			// A literal called in place releases per round; one
			// stored or handed on, who knows.
			if own.UseOf(n, l.objs, l.kind()) != ownership.Borrow {
				other = true
			}
			return false
		case *ast.DeferStmt:
			if n.Pos() > l.stmt.Pos() && ds == nil && own.UseOf(n, l.objs, l.kind()) == ownership.Release {
				ds = n
			} else if own.UseOf(n, l.objs, l.kind()) != ownership.Borrow {
				other = true
			}
			return false
		case ast.Stmt:
			switch n.(type) {
			case *ast.ExprStmt, *ast.AssignStmt, *ast.ReturnStmt, *ast.SendStmt, *ast.GoStmt, *ast.DeclStmt:
				if n != l.stmt && own.UseOf(n, l.objs, l.kind()) != ownership.Borrow {
					other = true
				}
				return false
			}
		}
		return true
	})
	if other || ds == nil {
		return nil
	}
	// The round must be able to come back to the acquisition with the
	// deferred release still pending: a round that always returns after
	// the defer (a dial retried until it works, then used) piles nothing up.
	g := l.f.s.paths.Func(l.f.cur.Node())
	if g == nil {
		return nil
	}
	at, ok1 := g.Locate(ds)
	acq, ok2 := g.Locate(l.stmt)
	if !ok1 || !ok2 {
		return nil
	}
	// A round that gets there only after Next returned false (rows
	// iterated to their end, which closes them) holds nothing any more.
	var closed func(*cfg.Block, int) bool
	if l.kind().NextCloses {
		info := l.f.info()
		closed = func(b *cfg.Block, i int) bool {
			if len(b.Succs) != 2 || len(b.Nodes) == 0 {
				return true
			}
			cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
			return !ok || !isNextCall(info, cond, l.objs, i == 0)
		}
	}
	if _, again := g.ReachesEdges(at.Next(), func(n ast.Node) bool { return n == acq.Node() }, nil, closed); !again {
		return nil
	}
	return ds
}

func (l *lease) reportDeferInLoop(ds *ast.DeferStmt) {
	k := l.kind()
	fn := "the function"
	if d, ok := l.f.cur.Node().(*ast.FuncDecl); ok {
		fn = d.Name.Name
	}
	l.f.s.rep.Report(analysis.Diagnostic{
		Pos: ds.Pos(), End: ds.End(),
		Message: fmt.Sprintf("%s is released by this deferred call, which runs only when %s returns, not at the end of the round: each round of the loop acquires another %s and none is %s before the loop is over",
			l.what(), fn, k.Noun, k.Verb),
		Related: []analysis.RelatedInformation{{Pos: l.call.Pos(), End: l.call.End(), Message: "acquired here, once per round"}},
	})
}

// holdsDescriptor reports whether the lease holds an operating-system or
// pool resource (a file, a connection, a body, rows, a statement, a
// listener, a transaction) rather than memory and a timer.
func (l *lease) holdsDescriptor() bool {
	switch l.kind() {
	case ownership.KindCancel, ownership.KindCancelCause, ownership.KindCancelTimer,
		ownership.KindTimer, ownership.KindTicker, ownership.KindSpan:
		return false
	}
	return true
}

// onceArm reports whether the acquisition sits in a select case, inside the
// loop, that receives from a time.Timer's channel: the timer fires once
// (the function never resets it), so the case runs at most once.
func (l *lease) onceArm(loop ast.Stmt) bool {
	info := l.f.info()
	c, ok := l.f.cur.FindNode(l.stmt)
	if !ok {
		return false
	}
	for p := c.Parent(); p.Node() != nil && p.Node() != ast.Node(loop); p = p.Parent() {
		cc, ok := p.Node().(*ast.CommClause)
		if !ok || cc.Comm == nil {
			continue
		}
		x := analysisutil.Received(cc.Comm)
		sel, ok := ast.Unparen(x).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "C" {
			return false
		}
		if pt, ok := info.TypeOf(sel.X).(*types.Pointer); !ok || !analysisutil.IsNamed(pt.Elem(), "time", "Timer") {
			return false
		}
		// A Reset rearms it, unless it is guarded by a Stop that
		// succeeded (the timer had not fired: it still fires once).
		for rc := range l.f.cur.Preorder((*ast.CallExpr)(nil)) {
			call := rc.Node().(*ast.CallExpr)
			s, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || s.Sel.Name != "Reset" || !analysisutil.SamePath(info, s.X, sel.X) {
				continue
			}
			guarded := false
			for e := range rc.Enclosing((*ast.IfStmt)(nil)) {
				guarded = stopsIn(info, e.Node().(*ast.IfStmt).Cond, sel.X)
				break
			}
			if !guarded {
				return false
			}
		}
		return true
	}
	return false
}

// stopsIn reports whether cond holds only if x.Stop() returned true (it is
// that call, or a conjunction with it).
func stopsIn(info *types.Info, cond ast.Expr, x ast.Expr) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		return c.Op == token.LAND && (stopsIn(info, c.X, x) || stopsIn(info, c.Y, x))
	case *ast.CallExpr:
		s, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Stop" && analysisutil.SamePath(info, s.X, x)
	}
	return false
}
