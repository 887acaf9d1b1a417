package leaseleak

import (
	"fmt"
	"go/ast"

	"golang.org/x/tools/go/analysis"

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
	case *ast.RangeStmt:
		body = s.Body
	default:
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
	if _, again := g.Reaches(at.Next(), func(n ast.Node) bool { return n == acq.Node() }, nil); !again {
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
