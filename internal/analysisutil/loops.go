package analysisutil

import (
	"go/ast"
	"go/types"
	"iter"

	"golang.org/x/tools/go/ast/inspector"
)

// IsRetryLoop reports whether loop repeats the same work rather than walking
// a collection: `for {}`, `for cond {}`, a counted `for` whose counter does
// not index anything, a range over an integer (`for attempt := range n`) or
// over a channel of time.Time (a ticker), or over a function iterator that
// yields a schedule: nothing, durations or integers (`for d := range
// backoff.Delays(base, n)`), which a loop uses to pace or count attempts
// rather than as the next item of work. These are the loops in which
// ignoring an error means trying the same thing again, which is retrycancel's
// business; errors ignored in loops over collections belong to swallowcancel.
// Both checks use this one rule so that no line is reported twice.
func IsRetryLoop(info *types.Info, loop ast.Stmt) bool {
	switch loop := loop.(type) {
	case *ast.RangeStmt:
		t := info.TypeOf(loop.X)
		if t == nil {
			return false
		}
		switch u := t.Underlying().(type) {
		case *types.Basic:
			return u.Info()&types.IsInteger != 0
		case *types.Chan:
			return IsNamed(u.Elem(), "time", "Time")
		case *types.Signature:
			return scheduleIterator(u)
		}
		return false
	case *ast.ForStmt:
		counter := loopCounter(info, loop)
		if counter == nil {
			return true
		}
		indexes := false
		ast.Inspect(loop.Body, func(n ast.Node) bool {
			if ix, ok := n.(*ast.IndexExpr); ok && ReferencesObject(info, ix.Index, counter) {
				indexes = true
			}
			return !indexes
		})
		return !indexes
	}
	return false
}

// scheduleIterator reports whether sig is a range-over-func iterator
// (func(yield func(...) bool)) whose yielded values are all durations or
// integers: the rounds of a backoff or an attempt count, not items.
func scheduleIterator(sig *types.Signature) bool {
	if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return false
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || yield.Results().Len() != 1 {
		return false
	}
	for v := range yield.Params().Variables() {
		if IsNamed(v.Type(), "time", "Duration") {
			continue
		}
		if b, ok := v.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
			return false
		}
	}
	return true
}

// loopCounter returns the variable declared by the init statement of a
// counted for loop (`for i := 0; ...`), or nil.
func loopCounter(info *types.Info, loop *ast.ForStmt) types.Object {
	as, ok := loop.Init.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 {
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return nil
	}
	return info.ObjectOf(id)
}

// EnclosingLoops yields the for and range statements around cur within its
// function, innermost first; cur itself is not included, and the walk stops
// at the nearest function declaration or literal.
func EnclosingLoops(cur inspector.Cursor) iter.Seq[ast.Stmt] {
	return func(yield func(ast.Stmt) bool) {
		for e := range cur.Enclosing((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
			if e.Node() == cur.Node() {
				continue
			}
			switch n := e.Node().(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				if !yield(n.(ast.Stmt)) {
					return
				}
			default:
				return
			}
		}
	}
}

// EnclosingLoop returns the innermost for or range statement around cur
// within its function, or nil.
func EnclosingLoop(cur inspector.Cursor) ast.Stmt {
	for loop := range EnclosingLoops(cur) {
		return loop
	}
	return nil
}
