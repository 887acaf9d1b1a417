package suitecheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentedCommands runs the commands README.md and docs/ci.md
// document, as a new user would: on a fresh clone of this repository
// (committed files only), install the binary, then run it standalone, as
// a vet tool (with and without go vet's own analyzers), through go fix,
// in pull-request mode on a newly added early return, and with a baseline
// after unrelated edits, on a scratch module of its own. (The
// golangci-lint offline build, scripts/custom-gcl.sh, is run by the
// plugin's end-to-end test.)
func TestDocumentedCommands(t *testing.T) {
	e2e(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tmp := t.TempDir()
	clone := filepath.Join(tmp, "clone")
	runIn(t, tmp, nil, "git", "clone", "-q", repoRoot(t), clone)
	gobin := filepath.Join(tmp, "bin")
	runIn(t, clone, []string{"GOBIN=" + gobin}, "go", "install", "./cmd/cancelcheck")
	bin := filepath.Join(gobin, "cancelcheck")

	mod := filepath.Join(tmp, "user")
	write := func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/user\n\ngo 1.26\n")
	const clean = `package user

import (
	"context"
	"time"
)

func work(ctx context.Context) error { return ctx.Err() }

// Bounded runs work under a timeout; the timer is released.
func Bounded(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	err := work(ctx)
	cancel()
	return err
}
`
	write("user.go", clean)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.email", "test@example.com"},
		{"config", "user.name", "test"},
		{"add", "-A"},
		{"commit", "-q", "-m", "initial"},
	} {
		runIn(t, mod, nil, "git", args...)
	}
	env := []string{"GOWORK=off", "GOFLAGS="}

	// Clean code: exit 0 standalone and under go vet.
	if out, code := exitOf(t, mod, env, bin, "./..."); code != 0 {
		t.Fatalf("cancelcheck on clean code: exit %d\n%s", code, out)
	}

	// PR mode: a new early return between the acquisition (an old line)
	// and the release leaks the timer; the finding sits on the old line.
	leaky := strings.Replace(clean, "\terr := work(ctx)\n", "\tif ctx.Err() != nil {\n\t\treturn ctx.Err()\n\t}\n\terr := work(ctx)\n", 1)
	write("user.go", leaky)
	out, code := exitOf(t, mod, env, bin, "-format=text", "-new-from-rev=HEAD", "./...")
	if code != 3 || !strings.Contains(out, "user.go:12:") || !strings.Contains(out, "[leaseleak]") {
		t.Errorf("-new-from-rev=HEAD with a new early return: exit %d, want 3 and the leak at user.go:12:\n%s", code, out)
	}

	// As a vet tool: the message names the check; -vet adds go vet's own.
	write("fmt.go", "package user\n\nimport \"fmt\"\n\nfunc Format(s string) string { return fmt.Sprintf(\"%d\", s) }\n")
	out, code = exitOf(t, mod, env, "go", "vet", "-vettool="+bin, "./...")
	if code == 0 || !strings.Contains(out, "[leaseleak]") || strings.Contains(out, "[printf]") {
		t.Errorf("go vet -vettool: exit %d, want the leak named [leaseleak] and no printf finding:\n%s", code, out)
	}
	out, code = exitOf(t, mod, env, "go", "vet", "-vettool="+bin, "-vet", "./...")
	if code == 0 || !strings.Contains(out, "[leaseleak]") || !strings.Contains(out, "[printf]") {
		t.Errorf("go vet -vettool -vet: exit %d, want the leak and the printf finding:\n%s", code, out)
	}

	// Baseline: record, survive unrelated edits, catch a new finding.
	base := filepath.Join(tmp, "baseline.json")
	if out, code := exitOf(t, mod, env, bin, "-write-baseline", base, "./..."); code != 0 {
		t.Fatalf("-write-baseline: exit %d\n%s", code, out)
	}
	write("user.go", strings.Replace(leaky, "package user\n", "package user\n\n// Unrelated commentary\n// that moves every line.\n", 1))
	if out, code := exitOf(t, mod, env, bin, "-format=text", "-baseline", base, "./..."); code != 0 {
		t.Errorf("-baseline after unrelated edits: exit %d\n%s", code, out)
	}
	write("more.go", "package user\n\nimport \"context\"\n\nfunc Leak(ctx context.Context) error {\n\tctx, _ = context.WithCancel(ctx)\n\treturn work(ctx)\n}\n")
	if out, code := exitOf(t, mod, env, bin, "-format=text", "-baseline", base, "./..."); code != 3 || !strings.Contains(out, "more.go") {
		t.Errorf("-baseline with a new finding: exit %d, want 3 and more.go:\n%s", code, out)
	}
	os.Remove(filepath.Join(mod, "more.go"))

	// Fixes through go fix (-diff previews, exit 1 when there is a diff),
	// then applied: the leak is gone and the module builds.
	out, code = exitOf(t, mod, env, "go", "fix", "-fixtool="+bin, "-diff", "./...")
	if code == 0 || !strings.Contains(out, "+\tdefer cancel()") {
		t.Errorf("go fix -fixtool -diff: exit %d, want a diff adding defer cancel():\n%s", code, out)
	}
	if out, code := exitOf(t, mod, env, "go", "fix", "-fixtool="+bin, "./..."); code != 0 {
		t.Errorf("go fix -fixtool: exit %d\n%s", code, out)
	}
	runIn(t, mod, env, "go", "build", "./...")
	if out, code := exitOf(t, mod, env, bin, "-format=text", "-tests=false", "./..."); code != 0 {
		t.Errorf("after go fix: exit %d, want no findings:\n%s", code, out)
	}

	// PR mode on a deletion: removing the release leaks the timer, though
	// no remaining line of the leak changed.
	runIn(t, mod, nil, "git", "add", "-A")
	runIn(t, mod, nil, "git", "commit", "-q", "-m", "fixed")
	src, err := os.ReadFile(filepath.Join(mod, "user.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "\tdefer cancel()\n") {
		t.Fatalf("go fix did not add defer cancel():\n%s", src)
	}
	write("user.go", strings.Replace(string(src), "\tdefer cancel()\n", "", 1))
	out, code = exitOf(t, mod, env, bin, "-format=text", "-new-from-rev=HEAD", "./...")
	if code != 3 || !strings.Contains(out, "[leaseleak]") {
		t.Errorf("-new-from-rev=HEAD after deleting defer cancel(): exit %d, want the leak:\n%s", code, out)
	}
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, code := exitOf(t, dir, env, name, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
	return out
}

func exitOf(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(out), 0
}
