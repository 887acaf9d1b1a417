package untrackedgo

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"

	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

// unheardSignal reports a goroutine literal that closes a channel its owner
// made to learn when it is done (`flushed := make(chan struct{})`; `go
// func() { defer close(flushed); ... }()`) when the owner never looks at
// that channel again: nothing receives from it, stores it or hands it on,
// so the owner returns without the wait the channel was made for, and the
// goroutine's work outlives it.
func unheardSignal(pass *analysis.Pass, g *goroutines.Goroutine) (analysis.Diagnostic, bool) {
	if g.Lit == nil || g.Owner == nil || g.Owner.Body == nil {
		return analysis.Diagnostic{}, false
	}
	info := pass.TypesInfo
	var ch *types.Var
	var closeCall *ast.CallExpr
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		if ch != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 || !analysisutil.IsBuiltin(info, call, "close") {
			return true
		}
		if id, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && v.Pos() >= g.Owner.Body.Pos() && v.Pos() < g.Lit.Pos() {
				ch, closeCall = v, call
			}
		}
		return ch == nil
	})
	if ch == nil || !madeByMake(info, g.Owner.Body, ch) {
		return analysis.Diagnostic{}, false
	}
	// The goroutine mentions ch only to close it: a channel it also sends
	// on or receives from is one it works with, closed when done with it.
	uses := 0
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == ch {
			uses++
		}
		return true
	})
	if uses != 1 {
		return analysis.Diagnostic{}, false
	}
	// Any mention of ch in the owner outside the goroutine, but its
	// definition, is a look at it (a receive, a select, a hand-off).
	heard := false
	ast.Inspect(g.Owner.Body, func(n ast.Node) bool {
		if heard || n == ast.Node(g.Lit) {
			return false
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == ch {
			heard = true
		}
		return !heard
	})
	if heard {
		return analysis.Diagnostic{}, false
	}
	return analysis.Diagnostic{
		Pos: g.Start.Pos(), End: startEnd(g),
		Message: fmt.Sprintf("goroutine closes %s when it is done, but %s never receives from %s: it returns without waiting for the goroutine, whose work outlives it",
			ch.Name(), g.Owner.Name(), ch.Name()),
		Related: []analysis.RelatedInformation{{Pos: closeCall.Pos(), End: closeCall.End(), Message: "the end is signalled here, to no one"}},
	}, true
}

// madeByMake reports whether v is defined in body by make(chan ...).
func madeByMake(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	made := false
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || made || len(as.Lhs) != len(as.Rhs) {
			return !made
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || info.Defs[id] != v {
				continue
			}
			if call, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr); ok && analysisutil.IsBuiltin(info, call, "make") {
				if _, isChan := info.TypeOf(call).Underlying().(*types.Chan); isChan {
					made = true
				}
			}
		}
		return !made
	})
	return made
}
