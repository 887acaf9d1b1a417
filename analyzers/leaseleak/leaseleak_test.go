package leaseleak_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/leaseleak"
)

func TestLeaseLeak(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), leaseleak.Analyzer, "cancels")
}
