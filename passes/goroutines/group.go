package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// GroupStart is a goroutine started through a group that its owner must
// wait for, (*errgroup.Group).Go or TryGo, (*sync.WaitGroup).Go or the
// runtime's (*scope.Scope).Go, on a path to a return of the owner that
// neither waits for the group nor hands it on.
type GroupStart struct {
	Call  *ast.CallExpr
	Group types.Object // the group variable, a local of Owner
	// GroupExpr is the receiver as written (g, wg).
	GroupExpr ast.Expr
	Owner     *ctxflow.Func
	// Exit is where Owner returns without waiting; Return is the return
	// statement, or nil for the end of the body.
	Exit   token.Pos
	Return *ast.ReturnStmt
}

// isGroupGo reports whether fn starts its function argument on a group
// that the caller waits for: the joiners of knownJoiner other than
// testing's RunParallel, which waits itself.
func isGroupGo(fn *types.Func) bool {
	return knownJoiner(fn) && !analysisutil.IsMethod(fn, "testing", "B", "RunParallel")
}

// groupStart records call, a Go of a group declared by the owner, when a
// path from it reaches a return of the owner without a use of the group
// (its Wait, or handing it to someone who waits: any mention other than
// starting more goroutines on it or setting its limit) and the owner does
// not defer such a use.
func (a *analysis) groupStart(c inspector.Cursor, call *ast.CallExpr) {
	if a.inTestFile(call.Pos()) {
		return
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	obj := rootObj(a.info, sel.X)
	f := a.flow.Enclosing(c)
	if obj == nil || f == nil || !a.declaredIn(obj, f) || isParamOf(obj, f) || isField(obj) {
		return
	}
	o := a.ownerOf(f)
	if o == nil || a.deferredJoin(o, map[types.Object]bool{obj: true}) || a.waitsElsewhere(o, obj) || a.handedOn(o, obj) {
		return
	}
	p, ok := o.graph.Locate(call)
	if !ok {
		return
	}
	waits := func(n ast.Node) bool {
		return flow.Mentions(n, func(m ast.Node) bool {
			id, ok := m.(*ast.Ident)
			return ok && a.info.Uses[id] == obj && !a.startsOn(n, id)
		})
	}
	exit, ok := o.graph.ExitAvoiding(p.Next(), waits)
	if !ok {
		return
	}
	a.res.GroupStarts = append(a.res.GroupStarts, &GroupStart{
		Call: call, Group: obj, GroupExpr: sel.X, Owner: f,
		Exit: exit.Pos(o.fn.Body), Return: exit.Return,
	})
}

// handedOn reports whether the owner stores the group where it outlives
// the owner, before or after starting work on it: in a field of a value
// (`b := &Batcher{g: g}`, `s.g = g`), behind a pointer, or in a result.
// Whoever holds that value waits for the group (a Close that calls
// b.g.Wait(), judged where it is declared); the owner's own paths say
// nothing about it.
func (a *analysis) handedOn(o *owner, obj types.Object) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && a.info.Uses[id] == obj
	}
	found := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			found = found || is(n.Value)
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				found = found || is(e)
			}
		case *ast.AssignStmt:
			for i, r := range n.Rhs {
				if i < len(n.Lhs) && len(n.Lhs) == len(n.Rhs) && is(r) {
					_, local := ast.Unparen(n.Lhs[i]).(*ast.Ident)
					found = found || !local
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				found = found || is(r)
			}
		}
		return !found
	})
	return found
}

// startsOn reports whether id is the receiver of a Go, TryGo or SetLimit
// call in n: starting more work on the group, or bounding it, is not
// waiting for it.
func (a *analysis) startsOn(n ast.Node, id *ast.Ident) bool {
	found := false
	flow.Mentions(n, func(m ast.Node) bool {
		call, ok := m.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.X.Pos() > id.Pos() || id.End() > sel.X.End() {
			return false
		}
		fn := analysisutil.Callee(a.info, call)
		if isGroupGo(fn) || fn != nil && fn.Name() == "SetLimit" {
			found = true
		}
		return found
	})
	return found
}

// waitsElsewhere reports whether a function literal of the owner uses the
// group other than to start work on it: a closer goroutine `go func() {
// wg.Wait(); close(done) }()` or a returned stop function waits for it, and
// the owner's paths through that literal's result are judged by whoever
// receives it.
func (a *analysis) waitsElsewhere(o *owner, obj types.Object) bool {
	found := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.FuncLit)
		if found || !ok {
			return !found
		}
		ast.Inspect(lit.Body, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && a.info.Uses[id] == obj && !a.startsOn(lit.Body, id) {
				found = true
			}
			return !found
		})
		return false
	})
	return found
}
