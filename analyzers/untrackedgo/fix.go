package untrackedgo

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

const scopePath = "github.com/cancelcheck/cancelcheck/rt/scope"

// scopeFix runs the goroutine in a scope of the runtime that the owner
// waits for where it returns:
//
//	sc, _ := scope.New(ctx)
//	defer sc.Wait()
//	...
//	sc.Go("owner", func(ctx context.Context) error { ...; return nil })
//
// It is offered only when the owner is clear: a declared function with a
// context (or request) of its own, and a `go func() { ... }()` literal
// without parameters.
func scopeFix(pass *analysis.Pass, g *goroutines.Goroutine) (analysis.SuggestedFix, bool) {
	var none analysis.SuggestedFix
	gs, ok := g.Start.(*ast.GoStmt)
	if !ok || g.Lit == nil || len(gs.Call.Args) > 0 || g.Owner.Obj == nil {
		return none, false
	}
	sig, _ := pass.TypesInfo.TypeOf(g.Lit).(*types.Signature)
	if sig == nil || sig.Params().Len() > 0 || sig.Results().Len() > 0 {
		return none, false
	}
	if len(g.Owner.Contexts) == 0 || g.Owner.Contexts[0].Outer || g.Owner.Contexts[0].Kind == ctxflow.FieldContext {
		return none, false
	}
	ctxExpr := g.Owner.Contexts[0].Expr
	file := analysisutil.FileOf(pass, gs.Pos())
	if file == nil {
		return none, false
	}
	ctxName := analysisutil.ImportName(file, "context")
	if ctxName == "" {
		return none, false
	}
	// "sc" must be free in the owner.
	if scope := pass.TypesInfo.Scopes[file].Innermost(gs.Pos()); scope != nil {
		if _, obj := scope.LookupParent("sc", gs.Pos()); obj != nil {
			return none, false
		}
	}
	name, imp := analysisutil.AddImport(pass.TypesInfo, file, g.Owner.Body.Lbrace, scopePath)
	edits := append([]analysis.TextEdit(nil), imp...)
	body := g.Owner.Body
	edits = append(edits, analysis.TextEdit{
		Pos: body.Lbrace + 1, End: body.Lbrace + 1,
		NewText: fmt.Appendf(nil, "\nsc, _ := %s.New(%s)\ndefer sc.Wait()", name, ctxExpr),
	})
	edits = append(edits, analysis.TextEdit{
		Pos: gs.Pos(), End: g.Lit.Body.Lbrace + 1,
		NewText: fmt.Appendf(nil, "sc.Go(%q, func(ctx %s.Context) error {", g.Owner.Name(), ctxName),
	})
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			edits = append(edits, analysis.TextEdit{Pos: n.Pos(), End: n.End(), NewText: []byte("return nil")})
		}
		return true
	})
	tail := "return nil\n})"
	if l := g.Lit.Body.List; len(l) > 0 {
		if _, ok := l[len(l)-1].(*ast.ReturnStmt); ok {
			tail = "})"
		}
	}
	edits = append(edits, analysis.TextEdit{Pos: g.Lit.Body.Rbrace, End: gs.End(), NewText: []byte(tail)})
	return analysis.SuggestedFix{
		Message:   "Run the goroutine in a scope that " + g.Owner.Name() + " waits for before returning",
		TextEdits: edits,
	}, true
}

func nodeText(pass *analysis.Pass, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, pass.Fset, n); err != nil {
		return ""
	}
	return buf.String()
}
