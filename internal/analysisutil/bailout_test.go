package analysisutil_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// bailer always bails out early, as a check does on a package that cannot
// contain its pattern.
var bailer = &analysis.Analyzer{
	Name: "bailer",
	Doc:  "bailer: bails out early",
	Run: func(pass *analysis.Pass) (any, error) {
		return analysisutil.NothingToReport(pass), nil
	},
}

func TestNothingToReport(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), bailer, "bailout")
}
