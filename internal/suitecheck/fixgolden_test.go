package suitecheck_test

import (
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

// fixGoldens are fixture packages (testdata/src/<check>_<topic>) for the
// shapes of code where fixes most often break a build: files with build
// constraints, generic code, cgo files, and fixes that add imports (to a
// file without an import block, or where the package name is shadowed).
var fixGoldens = []struct{ check, pkg string }{
	{"swallowcancel", "swallowcancel_tags"},
	{"leaseleak", "leaseleak_tags"},
	{"foldedtimeout", "foldedtimeout_generics"},
	{"swallowcancel", "swallowcancel_generics"},
	{"foldedtimeout", "foldedtimeout_imports"},
	{"untrackedgo", "untrackedgo_imports"},
	{"leaseleak", "leaseleak_cgo"},
	{"foldedtimeout", "foldedtimeout_cgo"},
}

// TestFixGoldens checks each check's fixes on those packages against
// .golden files. With CANCELCHECK_UPDATE_GOLDEN=1 it writes the golden files
// from the fixes instead (review them before committing).
func TestFixGoldens(t *testing.T) {
	update := os.Getenv("CANCELCHECK_UPDATE_GOLDEN") == "1"
	for _, g := range fixGoldens {
		t.Run(g.pkg, func(t *testing.T) {
			c, ok := analyzers.Lookup(g.check)
			if !ok {
				t.Skipf("%s is not registered", g.check)
			}
			if update {
				writeGoldens(t, c.Analyzer, g.pkg)
				return
			}
			analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), c.Analyzer, g.pkg)
		})
	}
}

// writeGoldens applies the first fix of every diagnostic a reports on pkg
// and writes each changed file's result to its .golden file.
func writeGoldens(t *testing.T, a *analysis.Analyzer, pkg string) {
	for _, res := range analysistest.Run(t, analysistest.TestData(), a, pkg) {
		byFile := map[string][]analysis.TextEdit{}
		for _, d := range res.Diagnostics {
			if len(d.SuggestedFixes) == 0 {
				continue
			}
			for _, e := range d.SuggestedFixes[0].TextEdits {
				name := res.Pass.Fset.File(e.Pos).Name()
				byFile[name] = append(byFile[name], e)
			}
		}
		names := make([]string, 0, len(byFile))
		for name := range byFile {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			out, err := applyEdits(res.Pass.Fset.File(byFile[name][0].Pos), src, byFile[name])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if f, err := format.Source(out); err == nil {
				out = f
			} else {
				t.Errorf("%s: fixed file does not parse: %v", name, err)
			}
			golden := filepath.Join(analysistest.TestData(), "src", pkg, filepath.Base(name)+".golden")
			if err := os.WriteFile(golden, out, 0o666); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", golden)
		}
	}
}
