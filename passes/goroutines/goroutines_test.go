package goroutines_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

// TestFacts checks the JoinsParam, Spawns and Bound facts; package b of
// analyzers/untrackedgo uses them across the package boundary.
func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), goroutines.Analyzer, "helpers")
}
