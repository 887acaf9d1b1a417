package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	dir := fixture(t)
	for _, format := range []string{"text", "human", "json", "sarif", "github"} {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := run(t, dir, "-format="+format, "-color=never", "./a")
			if code != ExitFindings {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitFindings, stderr)
			}
			golden(t, "a."+format, dir, stdout)
		})
	}
}

func TestHumanColor(t *testing.T) {
	dir := fixture(t)
	stdout, _, _ := run(t, dir, "-format=human", "-color=always", "./a")
	if !strings.Contains(stdout, "\x1b[") {
		t.Errorf("-color=always printed no colour:\n%s", stdout)
	}
	t.Setenv("NO_COLOR", "1")
	if useColor("auto", os.Stdout) {
		t.Errorf("colour with NO_COLOR=1")
	}
}

func TestExitCodes(t *testing.T) {
	dir := fixture(t)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"./clean"}, ExitClean, ""},
		{[]string{"./a"}, ExitFindings, ""},
		{[]string{"./broken"}, ExitLoad, "could not be loaded or type-checked"},
		{[]string{"./boom", "./a"}, ExitError, "internal error: the demo check panicked on package example.com/fixture/boom: runtime error: index out of range [1] with length 0"},
		{[]string{"-format=yaml", "./a"}, ExitError, "unknown -format=yaml"},
		{[]string{"-diff", "./a"}, ExitError, "-diff needs -fix"},
		{[]string{"-demo=false", "./a"}, ExitFindings, ""}, // the directive check still reports
		{[]string{"-demo=false", "-directive=false", "./a"}, ExitClean, ""},
		{[]string{"-explain", "nosuch"}, ExitError, `no check named "nosuch"`},
	} {
		stdout, stderr, code := run(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("cancelcheck %v: exit %d, want %d; stderr does not contain %q:\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.stderr, stdout, stderr)
		}
	}
}

// TestUnresolvedImportKeepsOthers checks that a package whose import no
// module provides, which makes go vet stop before vetting anything, is
// reported and the other packages are still analyzed.
func TestUnresolvedImportKeepsOthers(t *testing.T) {
	dir := fixture(t)
	stdout, stderr, code := run(t, dir, "-format=text", "./unresolved", "./a")
	if code != ExitLoad || !strings.Contains(stderr, "could not be loaded") || !strings.Contains(stderr, "example.com/fixture/missing") {
		t.Errorf("exit %d, want %d with the unresolved import named:\n%s", code, ExitLoad, stderr)
	}
	if !strings.Contains(stdout, "a.go:12:9: the call to Bad") {
		t.Errorf("package a was not analyzed next to the unresolved one:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// TestPanicKeepsOthers checks that a check panicking on one package is
// reported with its position and does not stop the findings elsewhere.
func TestPanicKeepsOthers(t *testing.T) {
	dir := fixture(t)
	stdout, stderr, _ := run(t, dir, "-format=text", "./boom", "./a")
	if !strings.Contains(stderr, "boom.go:2:1: internal error") || !strings.Contains(stderr, "please report it at") {
		t.Errorf("panic not reported with position and a request to file a bug:\n%s", stderr)
	}
	if !strings.Contains(stdout, "a.go:12:9: the call to Bad") {
		t.Errorf("findings on package a lost after the panic on boom:\n%s", stdout)
	}
	// A panic in a pass is reported through the check that requires it.
	_, stderr, code := run(t, dir, "-format=text", "./fragile", "./clean")
	if code != ExitError || !strings.Contains(stderr, "fragile.go:2:1: internal error: the fragile pass panicked on package example.com/fixture/fragile: fragile pass gave up (at internal/driver/main_test.go:") {
		t.Errorf("panic in a pass: exit %d\n%s", code, stderr)
	}
}

func TestListExplain(t *testing.T) {
	dir := fixture(t)
	stdout, _, code := run(t, dir, "-list")
	if code != 0 {
		t.Fatalf("-list: exit %d", code)
	}
	golden(t, "list", dir, stdout)
	stdout, _, _ = run(t, dir, "-explain", "demo")
	if !strings.HasPrefix(stdout, demoDoc) {
		t.Errorf("-explain demo printed:\n%s", stdout)
	}
}

func TestTestsFlag(t *testing.T) {
	dir := fixture(t)
	stdout, _, _ := run(t, dir, "-format=text", "./a")
	if !strings.Contains(stdout, "a_test.go") {
		t.Fatalf("test files not analyzed by default:\n%s", stdout)
	}
	stdout, _, _ = run(t, dir, "-format=text", "-tests=false", "./a")
	if strings.Contains(stdout, "a_test.go") || !strings.Contains(stdout, "a.go:") {
		t.Errorf("-tests=false:\n%s", stdout)
	}
}

func TestFix(t *testing.T) {
	dir := fixture(t)
	stdout, stderr, code := run(t, dir, "-fix", "-diff", "-demo=true", "./a")
	if code != ExitFindings {
		t.Errorf("-fix -diff: exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	golden(t, "a.diff", dir, stdout)

	// The unused directive on line 24 has no fix: it stays a finding.
	_, stderr, code = run(t, dir, "-fix", "-demo=true", "./a")
	if code != ExitFindings || !strings.Contains(stderr, "1 findings have no fix") || !strings.Contains(stderr, "a/a.go:24:1") {
		t.Errorf("-fix: exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a", "a.go"))
	golden(t, "a.go.fixed", dir, string(got))
	if stdout, _, _ := run(t, dir, "-format=text", "-demo=true", "./a"); strings.Contains(stdout, "the call to Bad") {
		t.Errorf("after -fix, calls to Bad remain:\n%s", stdout)
	}
}

// TestGoFixTool checks the driver as go fix's fix tool (Go 1.26): go fix
// -fixtool=cancelcheck applies the same fixes as cancelcheck -fix and
// go vet -vettool=cancelcheck -fix.
func TestGoFixTool(t *testing.T) {
	exe, _ := os.Executable()
	golden, err := os.ReadFile(filepath.Join("testdata", "golden", "a.go.fixed"))
	if err != nil {
		t.Fatal(err)
	}
	// cancelcheck -fix -demo=true: the demo check's fixes; go fix and go
	// vet -fix also apply the directive check's (the misspelt name).
	want := strings.Replace(string(golden), "ignore dmeo", "ignore demo", 1)
	for _, args := range [][]string{
		{"fix", "-fixtool=" + exe, "./a"},
		{"vet", "-vettool=" + exe, "-fix", "./a"},
	} {
		dir := fixture(t)
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(args[0], "vet") {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "a", "a.go"))
		if string(got) != want {
			t.Errorf("go %s left a.go different from cancelcheck -fix's result:\n%s\n%s", strings.Join(args, " "), out, unifiedDiff("want", "got", want, string(got)))
		}
	}
}

func TestVetTool(t *testing.T) {
	dir := fixture(t)
	exe, _ := os.Executable()
	cmd := exec.Command("go", "vet", "-vettool="+exe, "./a")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "a.go:12:9: the call to Bad returns 1, so Method computes the wrong answer [demo]\n") {
		t.Errorf("go vet -vettool: want the message ending in the check's name: %v\n%s", err, out)
	}
	cmd = exec.Command("go", "vet", "-vettool="+exe, "-demo=false", "-directive=false", "./a")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet -vettool -demo=false -directive=false: %v\n%s", err, out)
	}
}

// TestVetToolWithVet checks -vet: go vet's own analyzers run beside the
// checks in the same vet tool, vet's directive analyzer under another name.
func TestVetToolWithVet(t *testing.T) {
	dir := fixture(t)
	exe, _ := os.Executable()
	for _, tc := range []struct {
		args      []string
		wantPrint bool
	}{
		{[]string{"-vet"}, true},
		{nil, false},
	} {
		cmd := exec.Command("go", append(append([]string{"vet", "-vettool=" + exe}, tc.args...), "./vetsuite")...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if got := strings.Contains(string(out), "fmt.Sprintf format %d has arg s of wrong type string [printf]"); got != tc.wantPrint {
			t.Errorf("go vet -vettool %v: printf finding reported = %v, want %v:\n%s", tc.args, got, tc.wantPrint, out)
		}
		if !strings.Contains(string(out), "so F computes the wrong answer [demo]") {
			t.Errorf("go vet -vettool %v: no demo finding:\n%s", tc.args, out)
		}
	}
	var names []string
	for _, a := range vetSuite() {
		names = append(names, a.Name)
	}
	if slices.Contains(names, "lostcancel") || slices.Contains(names, "directive") || !slices.Contains(names, "vetdirective") || !slices.Contains(names, "printf") {
		t.Errorf("vetSuite() = %v: want printf and vetdirective, no lostcancel (leaseleak's) or directive (the suite's)", names)
	}
}

func TestGitHubStepSummary(t *testing.T) {
	dir := fixture(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	run(t, dir, "-format=github", "./a")
	got, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "| [demo](https://github.com/cancelcheck/cancelcheck/blob/main/docs/demo.md) | 6 |") {
		t.Errorf("step summary:\n%s", got)
	}
}
