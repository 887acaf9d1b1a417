package suitecheck_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

// TestStaleDirectiveEveryCheck checks that every check reports a directive
// that silences none of its findings even in a package where it bails out
// early (no context, no goroutine, nothing to acquire): a stale directive
// must not hide in packages the check skips.
func TestStaleDirectiveEveryCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range analyzers.Checks {
		name := c.Analyzer.Name
		pkg := filepath.Join(dir, "src", "stale"+name)
		if err := os.MkdirAll(pkg, 0o777); err != nil {
			t.Fatal(err)
		}
		src := "package stale" + name + "\n\nfunc F() int {\n\treturn 1 //cancelcheck:ignore " + name +
			" stale: nothing to silence // want `silences no " + name + " finding on this or the next line`\n}\n"
		if err := os.WriteFile(filepath.Join(pkg, "stale.go"), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			analysistest.Run(t, dir, c.Analyzer, "stale"+name)
		})
	}
}
