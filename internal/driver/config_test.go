package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestConfig(t *testing.T) {
	dir := fixture(t)
	cfg := filepath.Join(dir, ".cancelcheck.yml")

	// Settings reach the check, in the vet tool run by go vet.
	writeFile(t, cfg, "settings:\n  demo:\n    quiet: [Twice, Method, Misspelt]\ntests: false\n")
	stdout, stderr, code := run(t, dir, "-format=text", "-directive=false", "./a")
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// Twice is quiet now, so its directive silences nothing either.
	if strings.Contains(stdout, "the call to Bad") || strings.Contains(stdout, "a_test.go") || strings.Count(stdout, "silences no demo finding") != 2 {
		t.Errorf("with quiet functions and tests: false, want only the two unused directives:\n%s", stdout)
	}
	// The command line wins over the file.
	stdout, _, _ = run(t, dir, "-format=text", "-tests=true", "./a")
	if !strings.Contains(stdout, "a_test.go") {
		t.Errorf("-tests=true did not override tests: false:\n%s", stdout)
	}
	// go vet -vettool finds the file too.
	exe, _ := os.Executable()
	cmd := exec.Command("go", "vet", "-vettool="+exe, "-directive=false", "./a")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), "the call to Bad") {
		t.Errorf("go vet -vettool ignored %s:\n%s", cfg, out)
	}

	// Checks off by default turn on; on by default turn off.
	writeFile(t, cfg, "checks:\n  loud: true\n  demo: false\n")
	stdout, _, _ = run(t, dir, "-format=text", "./a")
	if !strings.Contains(stdout, "function Quiet is too quiet [loud]") || strings.Contains(stdout, "[demo]") {
		t.Errorf("checks: loud on, demo off:\n%s", stdout)
	}

	// Bad configuration is an error naming file, line, key and what is allowed.
	for _, tc := range []struct{ yml, want string }{
		{"test: false\n", `.cancelcheck.yml:1: unknown key "test"; allowed: checks, settings, tests`},
		{"checks:\n  nosuch: true\n", `.cancelcheck.yml:2: checks: no check named "nosuch"; known checks: demo, directive, loud`},
		{"checks:\n  demo: maybe\n", `.cancelcheck.yml:2: checks.demo must be true or false, not "maybe"`},
		{"settings:\n  demo:\n    quite: [X]\n", `.cancelcheck.yml:3: settings.demo: unknown key "quite"; allowed: quiet`},
		{"settings:\n  demo:\n    quiet: 3\n", `.cancelcheck.yml:2: settings.demo: json: cannot unmarshal number into Go struct field demoConfig.quiet of type []string`},
		{"settings:\n  loud:\n    x: 1\n", `.cancelcheck.yml:3: settings.loud: unknown key "x"; this check has no settings`},
		{"tests: [1\n", `.cancelcheck.yml: yaml: line 1: did not find expected ',' or ']'`},
	} {
		writeFile(t, cfg, tc.yml)
		_, stderr, code := run(t, dir, "./a")
		if code != ExitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("config %q: exit %d, stderr:\n%s\nwant it to contain %q", tc.yml, code, stderr, tc.want)
		}
	}
	os.Remove(cfg)

	// A broken file nearer to a package is found by the vet tool.
	writeFile(t, filepath.Join(dir, "a", ".cancelcheck.yml"), "chekcs: {}\n")
	if _, stderr, code := run(t, dir, "./a"); code != ExitError || !strings.Contains(stderr, `a/.cancelcheck.yml:1: unknown key "chekcs"`) {
		t.Errorf("nested bad config: exit %d\n%s", code, stderr)
	}
	os.Remove(filepath.Join(dir, "a", ".cancelcheck.yml"))

	// -config names a file anywhere.
	other := filepath.Join(t.TempDir(), "cc.yml")
	writeFile(t, other, "checks:\n  demo: false\n  directive: false\n")
	if stdout, stderr, code := run(t, dir, "-format=text", "-config", other, "./a"); code != ExitClean {
		t.Errorf("-config %s: exit %d\n%s%s", other, code, stdout, stderr)
	}
	// Editing it invalidates go vet's cached results.
	writeFile(t, other, "checks:\n  demo: true\n  directive: false\n")
	if stdout, _, code := run(t, dir, "-format=text", "-config", other, "./a"); code != ExitFindings || !strings.Contains(stdout, "[demo]") {
		t.Errorf("-config %s after an edit: exit %d (stale cache?)\n%s", other, code, stdout)
	}
}
