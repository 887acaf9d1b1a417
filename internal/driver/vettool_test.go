package driver

import (
	"math"
	"os"
	"runtime/debug"
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

// TestTuneGC checks that the vet-tool process raises the GC target and
// sets a soft memory limit, and leaves both alone when the user chose them.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	tuneGC()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent = %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != gcMemLimit {
		t.Errorf("memory limit = %d, want %d", got, gcMemLimit)
	}

	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent = %d, want it left at 100", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: memory limit = %d, want it left alone", got)
	}
}
