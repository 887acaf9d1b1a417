package driver

import (
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

// TestFactProducers checks what a facts-only unit runs for the real suite:
// every analyzer in the suite's closure that exports facts, each after the
// analyzers it requires, and nothing else.
func TestFactProducers(t *testing.T) {
	all := required(analyzers.All())
	got := factProducers(analyzers.All())
	var want []string
	for _, a := range all {
		if len(a.FactTypes) > 0 {
			want = append(want, a.Name)
		}
	}
	names := func(as []*analysis.Analyzer) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	if !slices.Equal(names(got), want) {
		t.Errorf("factProducers = %v, want %v", names(got), want)
	}
	for _, name := range []string{"ctxflow", "ownership", "goroutines", "ctrlflow"} {
		if !slices.Contains(want, name) {
			t.Errorf("the suite's closure has no fact-producing %s", name)
		}
	}
	for _, a := range got {
		if len(a.FactTypes) == 0 {
			t.Errorf("%s exports no facts", a.Name)
		}
	}
	pos := make(map[*analysis.Analyzer]int)
	for i, a := range all {
		pos[a] = i
	}
	for _, a := range all {
		for _, r := range a.Requires {
			if pos[r] > pos[a] {
				t.Errorf("required: %s comes before %s, which it requires", a.Name, r.Name)
			}
		}
	}
}
