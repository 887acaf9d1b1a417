package suitecheck_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// e2e skips the test unless CANCELCHECK_E2E=1 (scripts/test.sh sets it).
func e2e(t *testing.T) {
	t.Helper()
	if os.Getenv("CANCELCHECK_E2E") != "1" {
		t.Skip("set CANCELCHECK_E2E=1 to run the end-to-end tests")
	}
}

// buildTool builds cmd/cancelcheck into a temporary directory.
func buildTool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cancelcheck")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cancelcheck")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// crashLine matches what a crash or a caught internal error leaves in the
// output of go vet or of the tool.
var crashLine = regexp.MustCompile(`(?i)^panic: |internal error|^goroutine \d+ \[|^fatal error: |\[recovered\]|please file a bug|please report it`)

// vetAll runs `go vet -vettool=bin pkgs...` in dir within timeout and fails
// the test for every line of output that shows a crash. Findings (and the
// exit status they cause) are expected.
func vetAll(t *testing.T, bin, dir string, timeout time.Duration, pkgs ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"vet", "-vettool=" + bin}, pkgs...)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("go vet -vettool over %s did not finish within %v", label(pkgs), timeout)
	}
	findings, crashes := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case crashLine.MatchString(line):
			crashes++
			if crashes <= 20 {
				t.Errorf("crash in go vet -vettool: %s", line)
			}
		case strings.Contains(line, ".go:"):
			findings++
		}
	}
	t.Logf("go vet -vettool over %s: %d finding lines, exit %v, %v", label(pkgs), findings, err, time.Since(start).Round(time.Second))
	if crashes > 0 {
		t.Logf("output:\n%s", out)
	}
	if err != nil && findings == 0 && crashes == 0 {
		t.Errorf("go vet failed without findings: %v\n%s", err, out)
	}
}

// TestNoCrashStd runs the suite as a vet tool over every package of the
// standard library, tests included.
func TestNoCrashStd(t *testing.T) {
	e2e(t)
	bin := buildTool(t)
	vetAll(t, bin, repoRoot(t), 40*time.Minute, "std")
}

// TestNoCrashDeps runs the suite as a vet tool over every package this
// module (and its staticcheck tool) depends on from the module cache.
func TestNoCrashDeps(t *testing.T) {
	e2e(t)
	bin := buildTool(t)
	root := repoRoot(t)
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./...", "honnef.co/go/tools/cmd/staticcheck")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "github.com/cancelcheck/cancelcheck") {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("no dependencies found")
	}
	vetAll(t, bin, root, 20*time.Minute, pkgs...)
}

// label names a package list briefly for messages.
func label(pkgs []string) string {
	if len(pkgs) <= 3 {
		return strings.Join(pkgs, " ")
	}
	return fmt.Sprintf("%s ... (%d packages)", pkgs[0], len(pkgs))
}
