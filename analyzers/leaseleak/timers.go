package leaseleak

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkTimerFuncs reports, in files older than Go 1.23, time.After in a
// select inside a loop (each round leaves a timer behind until it fires)
// and time.Tick in a function that returns (its ticker is never stopped
// nor collected).
func (f *function) checkTimerFuncs() {
	if f.newTimers(f.body.Pos()) {
		return
	}
	info := f.info()
	for c := range f.cur.Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		isAfter := analysisutil.IsCallToFunc(info, call, "time", "After")
		isTick := analysisutil.IsCallToFunc(info, call, "time", "Tick")
		if !isAfter && !isTick {
			continue
		}
		// Only calls of this function, not of nested literals.
		var loop, sel ast.Node
		own := true
		for e := range c.Enclosing() {
			if e.Node() == call {
				continue
			}
			switch n := e.Node().(type) {
			case *ast.FuncLit:
				if n != f.cur.Node() {
					own = false
				}
			case *ast.SelectStmt:
				if sel == nil {
					sel = n
				}
			case *ast.ForStmt, *ast.RangeStmt:
				if loop == nil && own {
					loop = n
				}
			}
			if e.Node() == f.cur.Node() {
				break
			}
		}
		if !own {
			continue
		}
		switch {
		case isAfter && loop != nil && sel != nil && len(sel.(*ast.SelectStmt).Body.List) > 1:
			f.s.rep.Report(analysis.Diagnostic{
				Pos: call.Pos(), End: call.End(),
				Message: "the timer of time.After in this loop is not stopped when another case wins, so before Go 1.23 each round leaves a timer in the runtime's heap until it fires; use a time.NewTimer stopped with defer, or go 1.23",
			})
		case isTick && !f.cfg.NoReturn():
			f.s.rep.Report(analysis.Diagnostic{
				Pos: call.Pos(), End: call.End(),
				Message: "the ticker of time.Tick can never be stopped, so before Go 1.23 it keeps firing after this function returns and is never collected; use time.NewTicker with defer Stop",
			})
		}
	}
}
