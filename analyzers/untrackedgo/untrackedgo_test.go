package untrackedgo_test

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/untrackedgo"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), untrackedgo.Analyzer, "a", "mainpkg", "stale", "skipdone", "groups", "shutdown")
}

// TestFacts checks that helpers of another package are understood through
// the goroutines pass's facts.
func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), untrackedgo.Analyzer, "b")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), untrackedgo.Analyzer, "fix", "fixeg")
}

// TestNoRuntimeImport checks that a package whose build does not resolve
// the runtime module is offered no fix that imports it: the fix would not
// compile (issue 18).
func TestNoRuntimeImport(t *testing.T) {
	for _, r := range analysistest.Run(t, analysistest.TestData(), untrackedgo.Analyzer, "nort") {
		for _, d := range r.Diagnostics {
			for _, f := range d.SuggestedFixes {
				for _, e := range f.TextEdits {
					if strings.Contains(string(e.NewText), "cancelcheck/rt") {
						t.Errorf("%s: fix %q imports the runtime module", d.Message, f.Message)
					}
				}
			}
		}
	}
}
