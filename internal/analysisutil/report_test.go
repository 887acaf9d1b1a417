package analysisutil_test

import (
	"go/ast"

	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/directives"
)

// reporter reports every call to a function named Bad through a Reporter,
// with the directives pass, as the suite's checks do.
var reporter = &analysis.Analyzer{
	Name:     "reporter",
	Doc:      "reporter: reports calls to Bad",
	Requires: []*analysis.Analyzer{directives.Analyzer},
	Run: analysisutil.Finishing(func(pass *analysis.Pass) (any, error) {
		rep := analysisutil.NewReporter(pass)
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "Bad" {
						rep.Report(analysis.Diagnostic{Pos: call.Pos(), Message: "call to Bad"})
					}
				}
				return true
			})
		}
		rep.Finish()
		return nil, nil
	}),
}

// TestReporterDirectives checks what silences a finding: tab-separated
// fields, a directive listing several checks, a file-wide directive; and
// what does not (no reason), with stale directives reported.
func TestReporterDirectives(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), reporter, "silence")
}

// quitter returns before making a Reporter, as a check does on a package
// that cannot contain its pattern.
var quitter = &analysis.Analyzer{
	Name:     "quitter",
	Doc:      "quitter: returns early",
	Requires: []*analysis.Analyzer{directives.Analyzer},
	Run:      analysisutil.Finishing(func(*analysis.Pass) (any, error) { return nil, nil }),
}

// TestFinishing checks that a check returning early still reports its
// stale directives.
func TestFinishing(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), quitter, "bailfinish")
}
