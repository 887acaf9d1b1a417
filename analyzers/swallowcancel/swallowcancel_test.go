package swallowcancel_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/swallowcancel"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), swallowcancel.Analyzer, "a", "mainpkg", "pipeline", "stale")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), swallowcancel.Analyzer, "fix", "fixother")
}

// TestRuntimeFixes runs in module mode against the real runtime module: a
// package that imports it is offered stop.Err as a second fix.
func TestRuntimeFixes(t *testing.T) {
	dir := filepath.Join(analysistest.TestData(), "rtfix")
	analysistest.RunWithSuggestedFixes(t, dir, swallowcancel.Analyzer, "./...")
}
