package flow_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// probe reports, for each function literal or declaration of the fixture,
// the answers of the path queries about calls of the fixture's marker
// functions:
//
//   - done(): is it called on every path from the entry to an exit
//     ("every path calls done" or "exit at line N skips done");
//   - in each for or range loop that calls work(): can a round go back to
//     the head without passing a block that calls check()
//     ("a working round skips check" or "no working round skips check").
var probe = &analysis.Analyzer{
	Name:     "probe",
	Doc:      "reports the flow pass's answers on a fixture",
	Requires: []*analysis.Analyzer{inspect.Analyzer, flow.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
		res := pass.ResultOf[flow.Analyzer].(*flow.Result)
		calls := func(name string) func(ast.Node) bool {
			return func(n ast.Node) bool {
				return flow.Mentions(n, func(m ast.Node) bool {
					call, ok := m.(*ast.CallExpr)
					if !ok {
						return false
					}
					id, ok := call.Fun.(*ast.Ident)
					return ok && id.Name == name && pass.TypesInfo.Uses[id] != nil &&
						pass.TypesInfo.Uses[id].Parent() == pass.Pkg.Scope()
				})
			}
		}
		blockCalls := func(g *flow.Graph, name string) func(*cfg.Block) bool {
			pred := calls(name)
			return func(b *cfg.Block) bool {
				for _, n := range g.NodesOf(b) {
					if pred(n) {
						return true
					}
				}
				return false
			}
		}
		for c := range ins.Root().Preorder((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
			fn := c.Node()
			g := res.Func(fn)
			if g == nil {
				continue
			}
			var body *ast.BlockStmt
			switch fn := fn.(type) {
			case *ast.FuncDecl:
				body = fn.Body
			case *ast.FuncLit:
				body = fn.Body
			}
			if strings.Contains(nodeText(pass, body), "done()") {
				if exit, ok := g.ExitAvoiding(g.Entry(), calls("done")); ok {
					pass.Reportf(fn.Pos(), "exit at line %d skips done", pass.Fset.Position(exit.Pos(body)).Line)
				} else {
					pass.Reportf(fn.Pos(), "every path calls done")
				}
			}
			cur, _ := ins.Root().FindNode(body)
			for lc := range cur.Preorder((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil)) {
				loop := lc.Node().(ast.Stmt)
				if res.Func(enclosingFunc(lc)) != g {
					continue
				}
				head := g.LoopHead(loop)
				if head == nil {
					continue
				}
				if _, ok := g.CycleAvoiding(head, blockCalls(g, "check"), blockCalls(g, "work"), nil); ok {
					pass.Reportf(loop.Pos(), "a working round skips check")
				} else {
					pass.Reportf(loop.Pos(), "no working round skips check")
				}
			}
			// For each statement nilHere(v), say whether NilAt holds for v.
			for sc := range cur.Preorder((*ast.ExprStmt)(nil)) {
				es := sc.Node().(*ast.ExprStmt)
				call, ok := es.X.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 || res.Func(enclosingFunc(sc)) != g {
					continue
				}
				if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "nilHere" {
					continue
				}
				v, _ := pass.TypesInfo.Uses[call.Args[0].(*ast.Ident)].(*types.Var)
				if g.NilAt(v, es) {
					pass.Reportf(call.Pos(), "nil here")
				} else {
					pass.Reportf(call.Pos(), "maybe non-nil here")
				}
			}
			// For each statement defsHere(v), list the definitions of v
			// that reach it.
			for sc := range cur.Preorder((*ast.ExprStmt)(nil)) {
				es := sc.Node().(*ast.ExprStmt)
				call, ok := es.X.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 || res.Func(enclosingFunc(sc)) != g {
					continue
				}
				if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "defsHere" {
					continue
				}
				v, _ := pass.TypesInfo.Uses[call.Args[0].(*ast.Ident)].(*types.Var)
				defs, entry, ok := g.DefsReaching(v, es)
				if !ok {
					pass.Reportf(call.Pos(), "defs unknown")
					continue
				}
				var lines []string
				for _, d := range defs {
					line := fmt.Sprint(pass.Fset.Position(d.Pos()).Line)
					if val := g.DefValue(d, v); val != nil {
						line += "=" + types.ExprString(val)
					}
					lines = append(lines, line)
				}
				if entry {
					lines = append(lines, "entry")
				}
				pass.Reportf(call.Pos(), "defs %s", strings.Join(lines, " "))
			}
			// Locate every call of locate() and say in which block kind it is.
			for cc := range cur.Preorder((*ast.CallExpr)(nil)) {
				call := cc.Node().(*ast.CallExpr)
				if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "locate" || res.Func(enclosingFunc(cc)) != g {
					continue
				}
				p, ok := g.Locate(call)
				if !ok {
					pass.Reportf(call.Pos(), "not located")
					continue
				}
				pass.Reportf(call.Pos(), "in %s, node %T", p.Block.Kind, p.Node())
			}
		}
		return nil, nil
	},
}

func enclosingFunc(c inspector.Cursor) ast.Node {
	for p := c.Parent(); p.Valid(); p = p.Parent() {
		switch p.Node().(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return p.Node()
		}
	}
	return nil
}

func nodeText(pass *analysis.Pass, n ast.Node) string {
	var b strings.Builder
	ast.Inspect(n, func(m ast.Node) bool {
		if call, ok := m.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok {
				if _, isFunc := pass.TypesInfo.Uses[id].(*types.Func); isFunc {
					fmt.Fprintf(&b, "%s() ", id.Name)
				}
			}
		}
		return true
	})
	_ = token.NoPos
	return b.String()
}

func TestQueries(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), probe, "a", "nils", "defs")
}
