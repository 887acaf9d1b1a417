package ctxflow_test

import (
	"go/ast"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), ctxflow.Analyzer, "store", "api")
}

// TestResult checks the contexts in reach and MayCarryCancel through a
// probe analyzer that reports what the result says.
func TestResult(t *testing.T) {
	probe := &analysis.Analyzer{
		Name:     "probe",
		Doc:      "probe: report ctxflow's view of return statements",
		Requires: []*analysis.Analyzer{ctxflow.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			res := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
			for _, f := range res.Funcs {
				ast.Inspect(f.Body, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false
					}
					ret, ok := n.(*ast.ReturnStmt)
					if !ok || len(ret.Results) == 0 {
						return true
					}
					last := ret.Results[len(ret.Results)-1]
					if res.MayCarryCancel(last) {
						pass.Reportf(ret.Pos(), "carrier in %s with contexts %v", f.Name(), f.ContextExprs())
					}
					return true
				})
			}
			return nil, nil
		},
	}
	analysistest.Run(t, analysistest.TestData(), probe, "probe")
}
