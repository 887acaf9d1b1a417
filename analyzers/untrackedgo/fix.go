package untrackedgo

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/types"
	"go/version"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

const (
	scopePath    = "github.com/cancelcheck/cancelcheck/rt/scope"
	errgroupPath = "golang.org/x/sync/errgroup"
)

// scopeFix runs the goroutine in a scope of the runtime (or, in a file that
// already imports errgroup, an errgroup.Group) that the owner waits for
// where it returns:
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
	if !ok || !inline(g) || len(gs.Call.Args) > 0 || g.Owner.Obj == nil {
		return none, false
	}
	sig, _ := pass.TypesInfo.TypeOf(g.Lit).(*types.Signature)
	if sig == nil || sig.Params().Len() > 0 || sig.Results().Len() > 0 {
		return none, false
	}
	file := analysisutil.FileOf(pass, gs.Pos())
	if file == nil {
		return none, false
	}
	free := func(name string) bool {
		return analysisutil.FreeName(pass.TypesInfo, file, gs.Pos(), name, false) == name
	}
	body := g.Owner.Body
	var edits []analysis.TextEdit
	var message string
	if eg := analysisutil.ImportName(file, errgroupPath); eg != "" {
		// The package already uses errgroup: a Group the owner waits for.
		if !free("eg") {
			return none, false
		}
		edits = append(edits,
			analysis.TextEdit{Pos: body.Lbrace + 1, End: body.Lbrace + 1,
				NewText: fmt.Appendf(nil, "\nvar eg %s.Group\ndefer eg.Wait()", eg)},
			analysis.TextEdit{Pos: gs.Pos(), End: g.Lit.Body.Lbrace + 1, NewText: []byte("eg.Go(func() error {")})
		message = "Run the goroutine in an errgroup.Group that " + g.Owner.Name() + " waits for before returning"
	} else {
		if len(g.Owner.Contexts) == 0 || g.Owner.Contexts[0].Outer || g.Owner.Contexts[0].Kind == ctxflow.FieldContext {
			return none, false
		}
		if !analysisutil.ReachesModule(pass.Pkg, ctxflow.RuntimeModule) {
			// A build that does not resolve the runtime module would not
			// compile with its import.
			return none, false
		}
		// The runtime module needs Go 1.21.
		if v := pass.TypesInfo.FileVersions[file]; v != "" && version.Compare(v, "go1.21") < 0 {
			return none, false
		}
		ctxName := analysisutil.ImportName(file, "context")
		if ctxName == "" || !free("sc") {
			return none, false
		}
		name, imp := analysisutil.AddImport(pass.TypesInfo, file, body.Lbrace, scopePath)
		edits = append(edits, imp...)
		edits = append(edits,
			analysis.TextEdit{Pos: body.Lbrace + 1, End: body.Lbrace + 1,
				NewText: fmt.Appendf(nil, "\nsc, _ := %s.New(%s)\ndefer sc.Wait()", name, g.Owner.Contexts[0].Expr)},
			analysis.TextEdit{Pos: gs.Pos(), End: g.Lit.Body.Lbrace + 1,
				NewText: fmt.Appendf(nil, "sc.Go(%q, func(ctx %s.Context) error {", g.Owner.Name(), ctxName)})
		message = "Run the goroutine in a scope that " + g.Owner.Name() + " waits for before returning"
	}
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
	if pass.Fset.Position(g.Lit.Body.Lbrace).Line == pass.Fset.Position(g.Lit.Body.Rbrace).Line {
		// A one-line body: the return needs a line of its own.
		tail = "\n" + tail
	}
	if !fallsOffEnd(pass, g.Lit) {
		// The body ends in a return, or cannot reach its end (a loop that
		// only returns): a trailing return would be unreachable code.
		tail = "})"
	}
	edits = append(edits, analysis.TextEdit{Pos: g.Lit.Body.Rbrace, End: gs.End(), NewText: []byte(tail)})
	return analysis.SuggestedFix{Message: message, TextEdits: edits}, true
}

// fallsOffEnd reports whether some path through lit reaches the end of
// its body, where a function with results needs a return. (The graph
// makes that end an implicit return statement at the closing brace.)
func fallsOffEnd(pass *analysis.Pass, lit *ast.FuncLit) bool {
	g := pass.ResultOf[flow.Analyzer].(*flow.Result).Func(lit)
	if g == nil {
		return true
	}
	implicit := func(r *ast.ReturnStmt) bool { return r == nil || r.Return == lit.Body.Rbrace }
	exit, ok := g.ExitAvoiding(g.Entry(), func(n ast.Node) bool {
		r, ret := n.(*ast.ReturnStmt)
		return ret && !implicit(r)
	})
	return ok && implicit(exit.Return)
}

func nodeText(pass *analysis.Pass, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, pass.Fset, n); err != nil {
		return ""
	}
	return buf.String()
}
