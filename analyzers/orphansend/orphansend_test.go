package orphansend_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/orphansend"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), orphansend.Analyzer, "a", "stale", "futures", "registry")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), orphansend.Analyzer, "fix")
}
