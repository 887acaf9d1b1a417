package analysisutil_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

func TestFindNode(t *testing.T) {
	const src = `package p

func f() {
	g()
	if x := h(); x {
		g()
	}
}

func g()          {}
func h() bool     { return true }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	in := inspector.New([]*ast.File{f})
	n := 0
	// Every node, including those sharing an extent with their parent
	// (ExprStmt/CallExpr, Ident/FuncType boundaries), is found as itself.
	for c := range in.Root().Preorder() {
		got, ok := analysisutil.FindNode(in.Root(), c.Node())
		if !ok || got != c {
			t.Errorf("FindNode(%T at %v) = %v, %v; want the node's own cursor", c.Node(), fset.Position(c.Node().Pos()), got, ok)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("walked only %d nodes", n)
	}
}
