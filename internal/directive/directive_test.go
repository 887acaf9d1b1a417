package directive_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/internal/directive"
)

func TestDirective(t *testing.T) {
	a := directive.New([]string{"swallowcancel", "detachedctx"})
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), a, "a", "b")
}
