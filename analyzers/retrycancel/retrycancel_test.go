package retrycancel_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/retrycancel"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), retrycancel.Analyzer, "a", "b", "helpers", "backoffutil", "libs", "grpcloop", "msgloop", "rounds")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), retrycancel.Analyzer, "fix", "libfix")
}
