package ownership_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

func TestFacts(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), ownership.Analyzer, "owner", "user")
}
