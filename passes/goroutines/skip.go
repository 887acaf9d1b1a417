package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/cfg"

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
// not show (a callback), and a Done inside a loop counts work items rather
// than the goroutine: either leaves the WaitGroup out of the question.
func (a *analysis) skippedDone(g *Goroutine, outside func(types.Object) bool) *SkippedDone {
	if g.Lit != nil {
		return a.doneSkip(g.Lit, g.Lit.Body, outside, nil)
	}
	// go s.fetch(ctx, &wg, i): the callee's Done on its WaitGroup
	// parameter, when it is a function of this package.
	gs, ok := g.Start.(*ast.GoStmt)
	decl := a.decls[g.Callee]
	if !ok || decl == nil {
		return nil
	}
	sig := g.Callee.Type().(*types.Signature)
	params := map[types.Object]ast.Expr{}
	for i, arg := range gs.Call.Args {
		if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
			break
		}
		if p := sig.Params().At(i); isWaitGroup(p.Type()) {
			params[p] = arg
		}
	}
	if len(params) == 0 {
		return nil
	}
	return a.doneSkip(decl, decl.Body, func(obj types.Object) bool { return params[obj] != nil }, params)
}

// doneSkip answers skippedDone for the body of fn (a literal or a
// declaration), for the WaitGroups for which want holds; args, when not
// nil, maps a parameter to the argument the goroutine passes for it (the
// WaitGroup named in the message).
func (a *analysis) doneSkip(fn ast.Node, body *ast.BlockStmt, want func(types.Object) bool, args map[types.Object]ast.Expr) *SkippedDone {
	graph := a.graphs.Func(fn)
	if graph == nil {
		return nil
	}
	outside := want
	// The Done calls of the body, by WaitGroup, and the WaitGroups whose
	// Done runs in a literal the body does not defer.
	dones := map[types.Object]*ast.CallExpr{}
	exprs := map[types.Object]ast.Expr{}
	unknown := map[types.Object]bool{}
	// Done calls directly followed by a return end the goroutine, in a
	// loop too.
	exiting := map[*ast.CallExpr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		var list []ast.Stmt
		switch n := n.(type) {
		case *ast.BlockStmt:
			list = n.List
		case *ast.CaseClause:
			list = n.Body
		case *ast.CommClause:
			list = n.Body
		}
		for i := 0; i+1 < len(list); i++ {
			if es, ok := list[i].(*ast.ExprStmt); ok {
				if _, ret := list[i+1].(*ast.ReturnStmt); ret {
					if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok {
						exiting[call] = true
					}
				}
			}
		}
		return true
	})
	loops := 0
	var visit func(n ast.Node, inLit bool) bool
	visit = func(n ast.Node, inLit bool) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			// A Done per round counts work items, not this goroutine,
			// unless it is on the way out.
			loops++
			ast.Inspect(n, func(m ast.Node) bool {
				if m != n && m != nil {
					return visit(m, inLit)
				}
				return m != nil
			})
			loops--
			return false
		case *ast.DeferStmt:
			if lit, ok := ast.Unparen(n.Call.Fun).(*ast.FuncLit); ok {
				ast.Inspect(lit.Body, func(m ast.Node) bool { return visit(m, inLit) })
				return false
			}
		case *ast.FuncLit:
			ast.Inspect(n.Body, func(m ast.Node) bool { return visit(m, true) })
			return false
		case *ast.CallExpr:
			if isWaitGroupAdd(a.info, n) {
				// The body counts on it itself (wg.Add(1); if !start(f) {
				// wg.Done() }): its Done pairs with that Add, not with
				// this goroutine's.
				if obj := rootObj(a.info, n.Fun.(*ast.SelectorExpr).X); obj != nil {
					unknown[obj] = true
				}
				break
			}
			if !isWaitGroupDone(a.info, n) {
				break
			}
			x := n.Fun.(*ast.SelectorExpr).X
			obj := rootObj(a.info, x)
			if obj == nil || !outside(obj) {
				break
			}
			if inLit || loops > 0 && !exiting[n] {
				unknown[obj] = true
			} else if dones[obj] == nil {
				dones[obj], exprs[obj] = n, x
			}
		}
		return true
	}
	ast.Inspect(body, func(n ast.Node) bool { return n != nil && visit(n, false) })
	for obj, done := range dones {
		if unknown[obj] {
			continue
		}
		calls := func(n ast.Node) bool { return a.callsDone(n, obj) }
		if exit, ok := graph.ExitAvoidingEdges(graph.Entry(), calls, a.nonNil(obj)); ok {
			wg := exprs[obj]
			if arg := args[obj]; arg != nil {
				wg = arg
				if u, ok := ast.Unparen(arg).(*ast.UnaryExpr); ok && u.Op == token.AND {
					wg = u.X // go f(&wg): the WaitGroup is wg
				}
			}
			return &SkippedDone{WaitGroup: wg, Done: done, Exit: exit.Pos(body)}
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

// nonNil returns the edge filter under which obj is not nil: the branch of
// `obj == nil` or `obj != nil` taken for nil is not followed. A goroutine
// counted on a WaitGroup was given one (`if wg != nil { defer wg.Done() }`
// in net/rpc's service.call).
func (a *analysis) nonNil(obj types.Object) func(*cfg.Block, int) bool {
	return func(b *cfg.Block, i int) bool {
		if len(b.Succs) != 2 || len(b.Nodes) == 0 {
			return true
		}
		cond, ok := b.Nodes[len(b.Nodes)-1].(*ast.BinaryExpr)
		if !ok || cond.Op != token.EQL && cond.Op != token.NEQ {
			return true
		}
		x, y := cond.X, cond.Y
		if a.isNilIdent(x) {
			x, y = y, x
		}
		if !a.isNilIdent(y) || rootObj(a.info, x) != obj {
			return true
		}
		// Succs[0] is taken when cond holds: for ==, when obj is nil.
		nilBranch := 1
		if cond.Op == token.EQL {
			nilBranch = 0
		}
		return i != nilBranch
	}
}

func (a *analysis) isNilIdent(e ast.Expr) bool {
	tv, ok := a.info.Types[e]
	return ok && tv.IsNil()
}
