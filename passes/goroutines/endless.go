package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// Endless is a goroutine that no path through ends, started by a method or
// a constructor of a type that has a shutdown method (the shutdown cannot
// end it), or by a
// function given a context (canceling the context cannot end it).
type Endless struct {
	// Shutdown is the receiver type's method that claims to end what the
	// type runs (Close, Stop, Shutdown, GracefulStop); nil when Context is
	// set instead.
	Shutdown *types.Func
	// Context is the owner's context parameter, when the owner has no
	// shutdown method: the caller's handle on the work's lifetime.
	Context *types.Var
	// Ticker is the loop over a ticker's or timer's channel that never
	// ends (Stop does not close C), or nil when the body simply has no way
	// out (a `for {}` with no return or break).
	Ticker *ast.RangeStmt
}

// endless reports g when its body has no path to a normal exit (a range
// over a ticker's or timer's channel counts as never ending: Stop does not
// close C) and its owner is a method of a type with a shutdown method,
// which then cannot end it, or a function (not main-like) that takes a
// context, whose cancellation then cannot end it. A goroutine that can end
// (it returns on a stop channel, a closed input, a context) is judged by
// the other rules.
func (a *analysis) endless(o *owner, g *Goroutine) *Endless {
	if _, ok := g.Start.(*ast.GoStmt); !ok || o.fn.Obj == nil {
		return nil
	}
	var body ast.Node
	switch {
	case g.Lit != nil:
		body = g.Lit
	case g.Callee != nil:
		if d := a.decls[g.Callee.Origin()]; d != nil && d.Body != nil {
			body = d
		}
	}
	if body == nil {
		return nil
	}
	var shutdown *types.Func
	if recv := o.fn.Sig.Recv(); recv != nil {
		shutdown = shutdownMethod(recv.Type(), o.fn.Obj)
	} else {
		// A constructor: the shutdown method of the type it returns
		// (NewCache() *Cache, whose Close claims to stop the refresher).
		for i := range o.fn.Sig.Results().Len() {
			if shutdown = shutdownMethod(o.fn.Sig.Results().At(i).Type(), o.fn.Obj); shutdown != nil {
				break
			}
		}
	}
	var ctxParam *types.Var
	if shutdown == nil {
		ctxParam = contextParam(o.fn.Sig)
		if ctxParam == nil || a.isMain(o.fn) {
			return nil
		}
	}
	gr := a.graphs.Func(body)
	if gr == nil {
		return nil
	}
	var ticker *ast.RangeStmt
	edge := func(b *cfg.Block, i int) bool {
		r, ok := b.Stmt.(*ast.RangeStmt)
		if !ok || b.Kind != cfg.KindRangeLoop || i != 1 || !a.tickerChan(r.X) {
			return true
		}
		ticker = r
		return false // the loop's way out: C is never closed
	}
	if _, ok := gr.ExitAvoidingEdges(gr.Entry(), func(ast.Node) bool { return false }, edge); ok {
		return nil
	}
	if !hasLoop(body) {
		return nil // no loop: it blocks once or always panics, another matter
	}
	return &Endless{Shutdown: shutdown, Context: ctxParam, Ticker: ticker}
}

// contextParam returns the first named context parameter of sig, or nil.
func contextParam(sig *types.Signature) *types.Var {
	for i := range sig.Params().Len() {
		if p := sig.Params().At(i); analysisutil.IsContext(p.Type()) && p.Name() != "" && p.Name() != "_" {
			return p
		}
	}
	return nil
}

// hasLoop reports whether n has a for or range statement of its own (not
// of a nested literal).
func hasLoop(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		switch m.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			found = true
		case *ast.FuncLit:
			return m == n
		}
		return !found
	})
	return found
}

// tickerChan reports whether x is the channel of a *time.Ticker or
// *time.Timer (t.C) or time.Tick(d): channels that are never closed.
func (a *analysis) tickerChan(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.SelectorExpr:
		if x.Sel.Name != "C" {
			return false
		}
		t := deref(a.info.TypeOf(x.X))
		return analysisutil.IsNamed(t, "time", "Ticker") || analysisutil.IsNamed(t, "time", "Timer")
	case *ast.CallExpr:
		return analysisutil.IsFunc(analysisutil.Callee(a.info, x), "time", "Tick")
	}
	return false
}

// shutdownMethod returns a method of recv's type (other than self) whose
// name says it ends what the type runs, or nil.
func shutdownMethod(recv types.Type, self *types.Func) *types.Func {
	t := deref(recv)
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return nil
	}
	return methodNamed(t, shutdownNames, self)
}

// Stranded is a goroutine that ranges over a channel of its owner which
// the owner leaves open on some path: nobody else can close it, so the
// goroutine blocks in the range forever.
type Stranded struct {
	Chan  *types.Var     // the owner's channel
	Range *ast.RangeStmt // the goroutine's loop over it
	Exit  token.Pos      // where the owner returns with the channel open
}

// stranded reports g, a literal ranging over a channel variable of its
// owner, when the channel does not escape the owner (its only uses are
// that range, sends, close, len and cap) and a path from the go statement
// reaches a return of the owner without closing it, on a path from the
// owner's entry that did not close it before the go statement either (a
// deferred close, or a deferred literal that closes it, covers every path).
func (a *analysis) stranded(o *owner, g *Goroutine) *Stranded {
	if _, ok := g.Start.(*ast.GoStmt); !ok || g.Lit == nil || o.graph == nil {
		return nil
	}
	var rng *ast.RangeStmt
	var ch *types.Var
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		if rng != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if t := a.info.TypeOf(n.X); t != nil && isChanType(t) && a.perCallChan(o, g, n.X) {
				rng, ch = n, a.info.Uses[ast.Unparen(n.X).(*ast.Ident)].(*types.Var)
			}
		}
		return true
	})
	if rng == nil {
		return nil
	}
	closes := func(n ast.Node) bool {
		found := false
		ast.Inspect(n, func(m ast.Node) bool {
			if call, ok := m.(*ast.CallExpr); ok && a.isBuiltin(call, "close") && len(call.Args) == 1 {
				if id, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok && a.info.Uses[id] == ch {
					found = true
				}
			}
			return !found
		})
		return found
	}
	p, ok := o.graph.Locate(g.Start)
	if !ok {
		return nil
	}
	// A path entry -> go statement -> return that passes no close: a close
	// before the go statement (a prefilled job channel) closes it too.
	start := p.Node()
	if _, ok := o.graph.Reaches(o.graph.Entry(), func(n ast.Node) bool { return n == start }, closes); !ok {
		return nil
	}
	exit, ok := o.graph.ExitAvoiding(p.Next(), closes)
	if !ok {
		return nil
	}
	return &Stranded{Chan: ch, Range: rng, Exit: exit.Pos(o.fn.Body)}
}

// perCallChan reports whether x, ranged over by g, is a job channel of
// this call: a variable the owner made (`jobs := make(chan T)`) and uses
// only to send on, close, len or cap.
func (a *analysis) perCallChan(o *owner, g *Goroutine, x ast.Expr) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || o.fn.Body == nil {
		return false
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || !(o.fn.Body.Pos() <= v.Pos() && v.Pos() < o.fn.Body.End()) ||
		(g.Lit != nil && g.Lit.Pos() <= v.Pos() && v.Pos() < g.Lit.End()) {
		return false
	}
	return a.madeHere(o, v) && !a.chanEscapes(o, v, x)
}

// madeHere reports whether v is defined in the owner by `v := make(...)`
// or `var v = make(...)`.
func (a *analysis) madeHere(o *owner, v *types.Var) bool {
	found := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && a.info.Defs[id] == v {
					found = a.isMake(n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if a.info.Defs[id] == v && i < len(n.Values) {
					found = a.isMake(n.Values[i])
				}
			}
		}
		return true
	})
	return found
}

// chanEscapes reports whether the owner uses v other than by sending on
// it, closing it, len/cap, and the goroutine's range: handed to a call,
// assigned, returned, stored or captured by another literal, someone else
// may close it.
func (a *analysis) chanEscapes(o *owner, v *types.Var, rangeX ast.Expr) bool {
	allowed := make(map[*ast.Ident]bool)
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt:
			if id, ok := ast.Unparen(n.Chan).(*ast.Ident); ok {
				allowed[id] = true
			}
		case *ast.CallExpr:
			if (a.isBuiltin(n, "close") || a.isBuiltin(n, "len") || a.isBuiltin(n, "cap")) && len(n.Args) == 1 {
				if id, ok := ast.Unparen(n.Args[0]).(*ast.Ident); ok {
					allowed[id] = true
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						allowed[id] = true
					}
				}
			}
		}
		return true
	})
	if id, ok := ast.Unparen(rangeX).(*ast.Ident); ok {
		allowed[id] = true
	}
	escapes := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && (a.info.Uses[id] == v || a.info.Defs[id] == v) && !allowed[id] {
			escapes = true
		}
		return !escapes
	})
	return escapes
}

func isChanType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Chan)
	return ok
}
