package retrycancel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/retrycancel"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), retrycancel.Analyzer, "a", "b", "helpers", "backoffutil", "libs", "grpcloop", "msgloop", "rounds", "classify", "spin", "advance", "condwait")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), retrycancel.Analyzer, "fix", "libfix", "fixbreak")
}

// TestNoRuntimeImport checks that a package whose build does not resolve
// the runtime module is offered no fix that imports it: the fix would not
// compile (issue 18).
func TestNoRuntimeImport(t *testing.T) {
	for _, r := range analysistest.Run(t, analysistest.TestData(), retrycancel.Analyzer, "nort") {
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

// TestFixesGo122: before Go 1.23 the sleep fix stops its timer (a
// time.After per round would stay in the heap until it fires, which
// leaseleak reports).
func TestFixesGo122(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, filepath.Join(analysistest.TestData(), "go122"), retrycancel.Analyzer, "./...")
}
