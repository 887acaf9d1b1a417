package orphansend_test

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/orphansend"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), orphansend.Analyzer, "a", "stale", "futures", "registry", "giveup")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), orphansend.Analyzer, "fix")
}

// TestFutureGivesUp checks that a future's finding names the selects of
// its callers that can stop waiting for it.
func TestFutureGivesUp(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), orphansend.Analyzer, "futures")
	found := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if !strings.Contains(d.Message, "the caller of Async stops waiting") {
				continue
			}
			for _, rel := range d.Related {
				if rel.Message == "First stops waiting here when the select takes another case" {
					found++
				}
			}
		}
	}
	if found != 1 {
		t.Errorf("Async's finding names First's select %d times, want once", found)
	}
}
