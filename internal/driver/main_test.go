package driver

import (
	"bytes"
	"flag"
	"go/ast"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The test binary doubles as the cancelcheck binary: when
// CANCELCHECK_TEST_DRIVER is set it runs the driver with the test checks,
// so the standalone mode's go vet subprocess can use it as the vet tool.
func TestMain(m *testing.M) {
	if os.Getenv("CANCELCHECK_TEST_DRIVER") == "1" {
		os.Exit(Main(testChecks))
	}
	os.Setenv("CANCELCHECK_TEST_DRIVER", "1")
	os.Setenv("GOWORK", "off")
	os.Setenv("GOFLAGS", "-mod=mod")
	os.Exit(m.Run())
}

// demoConfig is the demo check's configuration.
type demoConfig struct {
	// Quiet names functions in which calls to Bad are fine.
	Quiet []string `json:"quiet"`
}

const demoDoc = `demo: report calls to Bad, which return the wrong answer

Calls to Bad return 1 where 2 is wanted. Call Good instead.`

// fragile is a pass (it reports nothing) that panics on package fragile.
var fragile = &analysis.Analyzer{
	Name: "fragile",
	Doc:  "fragile: a pass that panics on package fragile",
	Run: func(pass *analysis.Pass) (any, error) {
		if pass.Pkg.Name() == "fragile" {
			panic("fragile pass gave up")
		}
		return nil, nil
	},
}

// newDemo returns the demo check: it reports calls to a function named Bad
// with a fix that calls Good, and panics on package boom.
func newDemo(cfg demoConfig) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "demo",
		Doc:      demoDoc,
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/demo.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, fragile},
		Run: func(pass *analysis.Pass) (any, error) {
			if pass.Pkg.Name() == "boom" {
				files := pass.Files[:0]
				_ = files[len(pass.Files)] // a real bug: index out of range
			}
			rep := analysisutil.NewReporter(pass)
			ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
			var fn string
			ins.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node) {
				switch n := n.(type) {
				case *ast.FuncDecl:
					fn = n.Name.Name
				case *ast.CallExpr:
					callee, ok := typeutil.Callee(pass.TypesInfo, n).(*types.Func)
					if !ok || callee.Name() != "Bad" || slices.Contains(cfg.Quiet, fn) {
						return
					}
					id, ok := ast.Unparen(n.Fun).(*ast.Ident)
					if !ok {
						return
					}
					rep.Report(analysis.Diagnostic{
						Pos:     n.Pos(),
						End:     n.End(),
						Message: "the call to Bad returns 1, so " + fn + " computes the wrong answer",
						SuggestedFixes: []analysis.SuggestedFix{{
							Message:   "Call Good instead",
							TextEdits: []analysis.TextEdit{{Pos: id.Pos(), End: id.End(), NewText: []byte("Good")}},
						}},
					})
				}
			})
			rep.Finish()
			return nil, nil
		},
	}
}

// newLoud returns a check that is off by default and reports functions
// named Quiet.
func newLoud(struct{}) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name: "loud",
		Doc:  "loud: report functions named Quiet\n\nA test check that is off by default.",
		Run: func(pass *analysis.Pass) (any, error) {
			for _, f := range pass.Files {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Quiet" {
						pass.Reportf(fd.Name.Pos(), "function Quiet is too quiet")
					}
				}
			}
			return nil, nil
		},
	}
}

var testChecks = []analyzers.Check{
	analyzers.NewCheck(newDemo(demoConfig{}), "v0.1.0", newDemo),
	analyzers.NewCheck(newLoud(struct{}{}), "v0.2.0", newLoud).DefaultOff(),
}

// fixture copies testdata/fixture to a temporary directory.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/fixture")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs the standalone command in dir.
func run(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	c := &command{checks: directive.WithSuite(testChecks), stdout: &o, stderr: &e, wd: dir}
	code = c.run(args)
	return o.String(), e.String(), code
}

// golden compares got (with dir replaced by $DIR) to testdata/golden/name.
func golden(t *testing.T, name, dir, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, dir, "$DIR")
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o777)
		if err := os.WriteFile(path, []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, unifiedDiff("want", "got", string(want), got))
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.email", "test@example.com"},
		{"config", "user.name", "test"},
		{"add", "-A"},
		{"commit", "-q", "-m", "initial"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
