package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func editFile(t *testing.T, path string, f func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f(string(data))), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestBaseline adopts the checks on a legacy package: the baseline accepts
// today's findings, survives unrelated edits that move them, and lets a
// new finding through.
func TestBaseline(t *testing.T) {
	dir := fixture(t)
	base := filepath.Join(dir, "cancelcheck-baseline.json")
	_, stderr, code := run(t, dir, "-write-baseline", base, "./a")
	if code != ExitClean || !strings.Contains(stderr, "recorded 7 findings") {
		t.Fatalf("-write-baseline: exit %d\n%s", code, stderr)
	}
	if stdout, stderr, code := run(t, dir, "-format=text", "-baseline", base, "./a"); code != ExitClean {
		t.Fatalf("-baseline right after -write-baseline: exit %d\n%s%s", code, stdout, stderr)
	}
	// Unrelated edits: lines inserted above every finding, a function
	// moved below another.
	editFile(t, filepath.Join(dir, "a", "a.go"), func(s string) string {
		s = strings.Replace(s, "package a\n", "package a\n\n// Added commentary.\n// More of it.\n\nconst Unrelated = 1\n", 1)
		return strings.Replace(s, "func Quiet() int { return Good() }\n", "", 1) + "\nfunc Quiet() int { return Good() }\n"
	})
	if stdout, stderr, code := run(t, dir, "-format=text", "-baseline", base, "./a"); code != ExitClean {
		t.Fatalf("-baseline after unrelated edits: exit %d\n%s%s", code, stdout, stderr)
	}
	// A third call to Bad in Twice, and one in a new function, are new.
	editFile(t, filepath.Join(dir, "a", "a.go"), func(s string) string {
		s = strings.Replace(s, "x := Bad() + Bad()", "x := Bad() + Bad() + Bad()", 1)
		return s + "\nfunc Fresh() int { return Bad() }\n"
	})
	stdout, stderr, code := run(t, dir, "-format=text", "-baseline", base, "./a")
	if code != ExitFindings {
		t.Fatalf("-baseline with new findings: exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "so Twice computes") || !strings.Contains(lines[1], "so Fresh computes") {
		t.Errorf("-baseline reported, want the third call in Twice and the call in Fresh:\n%s", stdout)
	}
	if _, stderr, code := run(t, dir, "-baseline", filepath.Join(dir, "a", "a.go"), "./a"); code != ExitError || !strings.Contains(stderr, "not a cancelcheck baseline") {
		t.Errorf("bad baseline file: exit %d\n%s", code, stderr)
	}
}

func TestBaselineKey(t *testing.T) {
	kc := newKeyer()
	f := &Finding{Check: "c", Package: "p", Message: "x at a.go:12:3 and line 40 and lines 3-4", Pos: Position{File: "/nonexistent.go"}}
	if got := kc.key(f).Message; got != "x at a.go:N and line N and lines N" {
		t.Errorf("key message = %q", got)
	}
}

// TestNewFromRev checks that only findings on lines changed since a
// revision are reported, in a scratch git repository.
func TestNewFromRev(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := fixture(t)
	gitInit(t, dir)
	if stdout, _, code := run(t, dir, "-format=text", "-new-from-rev=HEAD", "./a"); code != ExitClean {
		t.Fatalf("nothing changed, yet exit %d:\n%s", code, stdout)
	}
	editFile(t, filepath.Join(dir, "a", "a.go"), func(s string) string {
		s = strings.Replace(s, "func Quiet() int { return Good() }", "func Quiet() int { return Bad() }", 1)
		return strings.Replace(s, "package a\n", "package a\n\n// Shifts every line down.\n", 1)
	})
	// An untracked file counts as new in full.
	if err := os.WriteFile(filepath.Join(dir, "a", "new.go"), []byte("package a\n\nfunc New() int { return Bad() }\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, dir, "-format=text", "-new-from-rev=HEAD", "./a")
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	golden(t, "newfromrev.text", dir, stdout)
	if _, stderr, code := run(t, dir, "-new-from-rev=nosuchrev", "./a"); code != ExitError || !strings.Contains(stderr, "not a git revision") {
		t.Errorf("bad revision: exit %d\n%s", code, stderr)
	}
}
