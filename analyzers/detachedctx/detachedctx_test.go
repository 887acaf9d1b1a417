package detachedctx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers/detachedctx"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), detachedctx.Analyzer, "a", "noctx", "roots")
}

// TestGo120 runs on a module whose go line predates context.WithoutCancel.
func TestGo120(t *testing.T) {
	analysistest.Run(t, filepath.Join(analysistest.TestData(), "old"), detachedctx.Analyzer, "./...")
}

func TestFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), detachedctx.Analyzer, "fix", "noctxfix")
}

// TestFixOrder checks which fix comes first (the one go vet -fix and
// golangci-lint --fix apply): the line above each finding in
// testdata/src/fixorder says "// first: <fix message>".
func TestFixOrder(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), detachedctx.Analyzer, "fixorder")
	n := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			pos := r.Pass.Fset.Position(d.Pos)
			src, err := os.ReadFile(pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(src), "\n")
			want, ok := strings.CutPrefix(strings.TrimSpace(lines[pos.Line-2]), "// first: ")
			if !ok {
				t.Errorf("%s: no // first: comment above the finding", pos)
				continue
			}
			n++
			if len(d.SuggestedFixes) == 0 || d.SuggestedFixes[0].Message != want {
				var got []string
				for _, f := range d.SuggestedFixes {
					got = append(got, f.Message)
				}
				t.Errorf("%s: fixes %q, want %q first", pos, got, want)
			}
		}
	}
	if n == 0 {
		t.Error("no findings in fixorder")
	}
}
