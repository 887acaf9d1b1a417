package foldedtimeout_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/foldedtimeout"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), foldedtimeout.Analyzer, "a", "botclient", "federation", "steps", "nearmiss", "stale", "fields", "verifier", "useverifier", "grpcerrs", "causes", "rows")
}

// TestFact checks that an opaque error type of another package is seen.
func TestFact(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), foldedtimeout.Analyzer, "errs", "b")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), foldedtimeout.Analyzer, "fix", "afterfunc")
}

// TestGo119 checks that no fix needs two %w where the module's Go version
// is older than 1.20.
func TestGo119(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, filepath.Join(analysistest.TestData(), "go119"), foldedtimeout.Analyzer, "./...")
}

// TestRuntimeFixes runs in module mode against the real runtime module: a
// package that imports it is offered stop.Wrap as a second fix.
func TestRuntimeFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, filepath.Join(analysistest.TestData(), "rtfix"), foldedtimeout.Analyzer, "./...")
}
