package swallowcancel_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/swallowcancel"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), swallowcancel.Analyzer, "a", "mainpkg")
}
