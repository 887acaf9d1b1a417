package detachedctx_test

import (
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/detachedctx"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), detachedctx.Analyzer, "a", "noctx")
}

// TestGo120 runs on a module whose go line predates context.WithoutCancel.
func TestGo120(t *testing.T) {
	analysistest.Run(t, filepath.Join(analysistest.TestData(), "old"), detachedctx.Analyzer, "./...")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), detachedctx.Analyzer, "fix", "noctxfix")
}
