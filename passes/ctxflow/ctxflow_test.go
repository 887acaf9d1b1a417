package ctxflow_test

import (
	"go/ast"
	"go/types"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), ctxflow.Analyzer, "store", "api", "checkers", "backoffutil", "idfree")
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
	analysistest.Run(t, analysistest.TestData(), probe, "probe", "groupprobe")
}

// TestCancel checks CancelTestOf, DoneContext, Detached and DeadlineOnly
// through a probe analyzer.
func TestCancel(t *testing.T) {
	probe := &analysis.Analyzer{
		Name:     "cancelprobe",
		Doc:      "cancelprobe: report ctxflow's view of cancellation tests",
		Requires: []*analysis.Analyzer{ctxflow.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			res := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
			str := func(e ast.Expr) string {
				if e == nil {
					return "<nil>"
				}
				return types.ExprString(e)
			}
			for _, f := range pass.Files {
				ast.Inspect(f, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.IfStmt:
						if ct, ok := res.CancelTestOf(n.Cond); ok {
							pass.Reportf(n.Pos(), "cancel test ctx=%s err=%s canceled=%v deadline=%v", str(ct.Ctx), str(ct.Err), ct.Canceled, ct.Deadline)
						}
					case *ast.CommClause:
						if n.Comm != nil {
							if x := res.DoneContext(n.Comm); x != nil {
								pass.Reportf(n.Pos(), "done %s", str(x))
							}
						}
					case *ast.CallExpr:
						if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "use" {
							switch {
							case res.Detached(n.Args[0]):
								pass.Reportf(n.Pos(), "detached")
							case res.DeadlineOnly(n.Args[0]):
								pass.Reportf(n.Pos(), "deadline only")
							}
						}
					}
					return true
				})
			}
			return nil, nil
		},
	}
	analysistest.Run(t, analysistest.TestData(), probe, "cancel")
}
