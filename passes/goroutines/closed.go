package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// ClosedUnder is a release of something goroutines use, right after their
// context is canceled and with no wait between: canceling only asks them
// to stop, so one still inside a call on the resource uses it after it is
// released.
//
//	ctx, cancel := context.WithCancel(ctx)
//	go e.worker(ctx) // calls e.kv.Set
//	...
//	cancel()
//	return e.kv.Close() // a worker inside Set writes to a closed store
type ClosedUnder struct {
	Goroutine *Goroutine
	Cancel    *ast.CallExpr // the cancel call
	Close     *ast.CallExpr // the release of the resource
	Field     *types.Var    // the field the goroutine uses it through
	Use       token.Pos     // where the goroutine uses it
}

// releaseNames are the methods that release a resource a goroutine may
// still be using.
var releaseNames = []string{"Close", "Stop", "Shutdown", "Release"}

// closedUnder fills res.ClosedUnder for the goroutines of o.
func (a *analysis) closedUnder(o *owner) {
	// The contexts o makes with a cancel function: ctx, cancel :=
	// context.WithCancel(...).
	cancelOf := map[types.Object]types.Object{} // cancel -> context
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if fn := analysisutil.Callee(a.info, call); fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
			return true
		}
		c, ok1 := ast.Unparen(as.Lhs[0]).(*ast.Ident)
		k, ok2 := ast.Unparen(as.Lhs[1]).(*ast.Ident)
		if ok1 && ok2 && a.info.ObjectOf(c) != nil && a.info.ObjectOf(k) != nil {
			cancelOf[a.info.ObjectOf(k)] = a.info.ObjectOf(c)
		}
		return true
	})
	if len(cancelOf) == 0 {
		return
	}
	// The calls of those cancel functions, but for a deferred one (it runs
	// at the return, after any release), in o's body and its
	// literals (a returned stop function is the owner's shutdown): one
	// walk for all of o's goroutines.
	calls := map[types.Object][]*ast.CallExpr{}
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			// defer cancel(): not such a call; a deferred literal that
			// cancels and then releases is.
			if id, ok := ast.Unparen(n.Call.Fun).(*ast.Ident); ok && cancelOf[a.info.Uses[id]] != nil {
				return false
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if k := a.info.Uses[id]; k != nil && cancelOf[k] != nil {
					calls[k] = append(calls[k], n)
				}
			}
		}
		return true
	})
	if len(calls) == 0 {
		return
	}
	for _, g := range o.gos {
		if g.Join == JoinedOnEveryPath || g.Orphaned {
			continue
		}
		gs, ok := g.Start.(*ast.GoStmt)
		if !ok {
			continue
		}
		fields := a.goroutineFields(g)
		if len(fields) == 0 {
			continue
		}
		for cancel, ctx := range cancelOf {
			if !analysisutil.ReferencesObject(a.info, gs, ctx) {
				continue
			}
			if cu := a.closeAfterCancel(g, calls[cancel], fields); cu != nil {
				a.res.ClosedUnder = append(a.res.ClosedUnder, cu)
				break
			}
		}
	}
}

// goroutineFields returns the fields g's body selects (the literal's, or
// the method of the package it runs, with calls of the receiver's other
// methods one level down), with a position of each use.
func (a *analysis) goroutineFields(g *Goroutine) map[*types.Var]token.Pos {
	var body *ast.BlockStmt
	switch {
	case g.Lit != nil:
		body = g.Lit.Body
	case g.Callee != nil:
		if d := a.decls[g.Callee.Origin()]; d != nil {
			body = d.Body
		}
	}
	if body == nil {
		return nil
	}
	out := map[*types.Var]token.Pos{}
	var visit func(n ast.Node, depth int)
	visit = func(n ast.Node, depth int) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.SelectorExpr:
				if f := a.fieldOf(m); f != nil {
					if _, seen := out[f]; !seen {
						out[f] = m.Pos()
					}
				}
			case *ast.CallExpr:
				if depth == 0 {
					if fn := originOf(analysisutil.Callee(a.info, m)); fn != nil && recvNamed(fn) != nil {
						if d := a.decls[fn]; d != nil && d.Body != nil {
							visit(d.Body, depth+1)
						}
					}
				}
			}
			return true
		})
	}
	visit(body, 0)
	return out
}

// closeAfterCancel returns, for the first of the cancel calls (outside
// g's own body) followed on some path with no wait between by a release
// (x.f.Close()) of a field f the goroutine uses, that release.
func (a *analysis) closeAfterCancel(g *Goroutine, calls []*ast.CallExpr, fields map[*types.Var]token.Pos) *ClosedUnder {
	for _, call := range calls {
		if g.Lit != nil && g.Lit.Pos() <= call.Pos() && call.End() <= g.Lit.End() {
			continue // the goroutine's own body
		}
		f := a.flow.EnclosingPos(call.Pos())
		if f == nil {
			continue
		}
		graph := a.graphs.Func(f.Node)
		if graph == nil {
			continue
		}
		p, ok := graph.Locate(call)
		if !ok {
			continue
		}
		var close *ast.CallExpr
		var field *types.Var
		target := func(m ast.Node) bool {
			return flow.Mentions(m, func(x ast.Node) bool {
				c, ok := x.(*ast.CallExpr)
				if !ok {
					return false
				}
				fv, name := a.fieldMethod(c)
				if fv == nil || !slices.Contains(releaseNames, name) {
					return false
				}
				if _, used := fields[fv.Origin()]; !used {
					return false
				}
				close, field = c, fv.Origin()
				return true
			})
		}
		if _, ok := graph.Reaches(p.Next(), target, a.waitsHere); ok && close != nil {
			return &ClosedUnder{Goroutine: g, Cancel: call, Close: close, Field: field, Use: fields[field]}
		}
	}
	return nil
}

// waitsHere reports whether n waits for something: a receive, a select,
// a Wait call, a sleep.
func (a *analysis) waitsHere(n ast.Node) bool {
	return flow.Mentions(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.UnaryExpr:
			return m.Op == token.ARROW
		case *ast.SelectStmt, *ast.RangeStmt:
			return true
		case *ast.CallExpr:
			fn := analysisutil.Callee(a.info, m)
			return fn != nil && (fn.Name() == "Wait" || analysisutil.IsFunc(fn, "time", "Sleep"))
		}
		return false
	})
}
