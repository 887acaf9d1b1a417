package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// SkippedDone is a path on which a goroutine ends without calling Done on
// the WaitGroup that counts it: the counter never reaches zero, so Wait
// blocks forever.
type SkippedDone struct {
	// WaitGroup is the expression of the WaitGroup (wg, s.wg).
	WaitGroup ast.Expr
	// Done is a Done call the goroutine makes on other paths.
	Done *ast.CallExpr
	// Exit is where the goroutine ends without it: a return, or the
	// closing brace of its body.
	Exit token.Pos
}

// skippedDone returns the path on which g's literal body ends without
// calling Done on a WaitGroup from outside that it calls Done on
// elsewhere, or nil when every path calls it (or defers it). A Done inside
// a function literal the body does not defer runs at a time the graph does
// not show (a callback), and leaves the WaitGroup out of the question.
func (a *analysis) skippedDone(g *Goroutine, outside func(types.Object) bool) *SkippedDone {
	if g.Lit == nil {
		return nil
	}
	graph := a.graphs.Func(g.Lit)
	if graph == nil {
		return nil
	}
	// The Done calls of the body, by WaitGroup, and the WaitGroups whose
	// Done runs in a literal the body does not defer.
	dones := map[types.Object]*ast.CallExpr{}
	exprs := map[types.Object]ast.Expr{}
	unknown := map[types.Object]bool{}
	var visit func(n ast.Node, inLit bool) bool
	visit = func(n ast.Node, inLit bool) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, func(m ast.Node) bool { return visit(m, inLit) })
				return false
			}
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, true) })
			return false
		case *ast.CallExpr:
			if !isWaitGroupDone(a.info, n) {
				break
			}
			x := n.Fun.(*ast.SelectorExpr).X
			obj := rootObj(a.info, x)
			if obj == nil || !outside(obj) {
				break
			}
			if inLit {
				unknown[obj] = true
			} else if dones[obj] == nil {
				dones[obj], exprs[obj] = n, x
			}
		}
		return true
	}
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool { return n != nil && visit(n, false) })
	for obj, done := range dones {
		if unknown[obj] {
			continue
		}
		calls := func(n ast.Node) bool { return a.callsDone(n, obj) }
		if exit, ok := graph.ExitAvoiding(graph.Entry(), calls); ok {
			return &SkippedDone{WaitGroup: exprs[obj], Done: done, Exit: exit.Pos(g.Lit.Body)}
		}
	}
	return nil
}

// callsDone reports whether the graph node n calls Done on obj, or defers
// such a call (directly or in a deferred literal).
func (a *analysis) callsDone(n ast.Node, obj types.Object) bool {
	isDone := func(m ast.Node) bool {
		call, ok := m.(*ast.CallExpr)
		return ok && isWaitGroupDone(a.info, call) && rootObj(a.info, call.Fun.(*ast.SelectorExpr).X) == obj
	}
	if d, ok := n.(*ast.DeferStmt); ok {
		found := false
		ast.Inspect(d, func(m ast.Node) bool {
			found = found || m != nil && isDone(m)
			return !found
		})
		return found
	}
	return flow.Mentions(n, isDone)
}
