package goroutines

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// Endless is a goroutine that no path through ends, started by a method of
// a type that has a shutdown method: the shutdown cannot end it.
type Endless struct {
	// Shutdown is the receiver type's method that claims to end what the
	// type runs (Close, Stop, Shutdown, GracefulStop).
	Shutdown *types.Func
	// Ticker is the loop over a ticker's or timer's channel that never
	// ends (Stop does not close C), or nil when the body simply has no way
	// out (a `for {}` with no return or break).
	Ticker *ast.RangeStmt
}

// endless reports g when its body has no path to a normal exit (a range
// over a ticker's or timer's channel counts as never ending: Stop does not
// close C) and its owner is a method of a type with a shutdown method,
// which then cannot end it. A goroutine that can end (it returns on a stop
// channel, a closed input, a context) is judged by the other rules.
func (a *analysis) endless(o *owner, g *Goroutine) *Endless {
	if _, ok := g.Start.(*ast.GoStmt); !ok || o.fn.Obj == nil || o.fn.Sig.Recv() == nil {
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
	shutdown := shutdownMethod(o.fn.Sig.Recv().Type(), o.fn.Obj)
	if shutdown == nil {
		return nil
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
	return &Endless{Shutdown: shutdown, Ticker: ticker}
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
	for _, name := range []string{"Close", "Stop", "Shutdown", "GracefulStop"} {
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), false, nil, name)
		if fn, ok := obj.(*types.Func); ok && fn != self {
			return fn
		}
	}
	return nil
}
