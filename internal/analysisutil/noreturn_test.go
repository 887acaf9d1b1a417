package analysisutil_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

func TestNoReturn(t *testing.T) {
	const src = `package p

import (
	"log"
	"os"
	"testing"
)

type logger interface{ Fatalf(string, ...any); Printf(string, ...any) }

func f(t *testing.T, l logger, lg *log.Logger) {
	panic("x")
	os.Exit(1)
	log.Fatalf("x")
	log.Panicln("x")
	lg.Fatal("x")
	t.Fatalf("x")
	t.FailNow()
	l.Fatalf("x")
	// returns:
	log.Printf("x")
	l.Printf("x")
	t.Errorf("x")
	os.Getenv("x")
	println()
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{file}, info); err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, st := range file.Decls[len(file.Decls)-1].(*ast.FuncDecl).Body.List {
		got = append(got, analysisutil.NoReturn(info, st.(*ast.ExprStmt).X.(*ast.CallExpr)))
	}
	want := []bool{true, true, true, true, true, true, true, true, false, false, false, false, false}
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: NoReturn = %v, want %v", i, got[i], want[i])
		}
	}
}
