package untrackedgo_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/untrackedgo"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), untrackedgo.Analyzer, "a", "mainpkg", "stale", "skipdone", "groups")
}

// TestFacts checks that helpers of another package are understood through
// the goroutines pass's facts.
func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), untrackedgo.Analyzer, "b")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), untrackedgo.Analyzer, "fix", "fixeg")
}
