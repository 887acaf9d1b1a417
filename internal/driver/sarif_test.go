package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

func init() {
	// The golden files must not depend on the Go release or revision the
	// test binary was built with.
	toolVersion = func() string { return "v0.9.1-test.1 0123456789ab go1.x" }
}

func decodeSARIF(t *testing.T, out string) sarifRun {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	return log.Runs[0]
}

func TestSARIFDriverVersion(t *testing.T) {
	dir := fixture(t)
	stdout, _, _ := run(t, dir, "-format=sarif", "./a")
	d := decodeSARIF(t, stdout).Tool.Driver
	if d.Version != toolVersion() || d.SemanticVersion != "0.9.1-test.1" {
		t.Errorf("driver version %q, semanticVersion %q", d.Version, d.SemanticVersion)
	}
	for _, tc := range []struct{ version, want string }{
		{"v0.1.0 0123456789ab go1.26.8", "0.1.0"},
		{"v1.2.3-rc.1+meta go1.26", "1.2.3-rc.1+meta"},
		{"v0.0.0-20260101120000-0123456789ab+dirty go1.26", "0.0.0-20260101120000-0123456789ab+dirty"},
		{"(devel) go1.26.8", ""},
		{" go1.26.8", ""},
		{"(unknown)", ""},
		{"v1.2 go1.26", ""},
		{"v01.2.3", ""},
		{"1.2.3", ""}, // Go versions have their v
	} {
		if got := semanticVersion(tc.version); got != tc.want {
			t.Errorf("semanticVersion(%q) = %q, want %q", tc.version, got, tc.want)
		}
	}
}

// TestSARIFRuleNames checks that the suite's rules have distinct
// PascalCase names, other than their ids.
func TestSARIFRuleNames(t *testing.T) {
	pascal := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	used := make(map[string]bool)
	for _, chk := range directive.WithSuite(analyzers.Checks) {
		id := chk.Analyzer.Name
		name := ruleName(id, used)
		if !pascal.MatchString(name) || strings.EqualFold(name, id) {
			t.Errorf("rule %s: name %q, want a PascalCase name that says more than the id", id, name)
		}
		if ruleNames[id] != name {
			t.Errorf("rule %s: name %q, want %q from ruleNames", id, name, ruleNames[id])
		}
	}
	for _, tc := range []struct{ check, want string }{
		{"demo", "Demo"},
		{"demo", "Demo2"}, // distinct
		{"my-check_v2", "MyCheckV2"},
		{"9lives", "Check9lives"},
		{"swallowcancel", "SwallowedCancellation2"},
	} {
		if got := ruleName(tc.check, used); got != tc.want {
			t.Errorf("ruleName(%q) = %q, want %q", tc.check, got, tc.want)
		}
	}
}

// TestSARIFBaseline checks that findings a baseline accepts are SARIF
// results marked suppressed, with the fingerprints they have without the
// baseline, while the other formats leave them out.
func TestSARIFBaseline(t *testing.T) {
	dir := fixture(t)
	base := filepath.Join(dir, "base.json")
	// The baseline accepts the directive check's finding only (the
	// misspelt check name).
	if _, stderr, code := run(t, dir, "-write-baseline="+base, "-demo=false", "./a"); code != ExitClean {
		t.Fatalf("-write-baseline: exit %d\n%s", code, stderr)
	}
	plain, _, _ := run(t, dir, "-format=sarif", "./a")
	stdout, stderr, code := run(t, dir, "-format=sarif", "-baseline="+base, "./a")
	if code != ExitFindings {
		t.Errorf("exit %d, want %d\n%s", code, ExitFindings, stderr)
	}
	want, got := decodeSARIF(t, plain).Results, decodeSARIF(t, stdout).Results
	if len(got) != len(want) {
		t.Fatalf("%d results with the baseline, %d without", len(got), len(want))
	}
	suppressed := 0
	for i, res := range got {
		if res.PartialFingerprints["cancelcheck/v1"] != want[i].PartialFingerprints["cancelcheck/v1"] || res.Message != want[i].Message {
			t.Errorf("result %d differs with the baseline: %+v, want %+v", i, res, want[i])
		}
		switch {
		case res.RuleID == "directive" && len(res.Suppressions) == 1:
			suppressed++
			if s := res.Suppressions[0]; s.Kind != "external" || s.Justification != "baseline "+base {
				t.Errorf("result %d: suppression %+v", i, s)
			}
		case res.RuleID == "directive" || len(res.Suppressions) > 0:
			t.Errorf("result %d (%s): suppressions %+v", i, res.RuleID, res.Suppressions)
		}
	}
	if suppressed != 1 {
		t.Errorf("%d results suppressed, want the directive finding", suppressed)
	}
	if !strings.Contains(stdout, `"suppressions": [`) {
		t.Errorf("no suppressions in the SARIF output")
	}

	// The other formats drop them.
	for _, format := range []string{"text", "json", "github", "human"} {
		stdout, _, _ := run(t, dir, "-format="+format, "-color=never", "-baseline="+base, "./a")
		if strings.Contains(stdout, "names dmeo") || !strings.Contains(stdout, "the call to Bad") {
			t.Errorf("-format=%s -baseline:\n%s", format, stdout)
		}
	}

	// All accepted: a clean run, every result suppressed.
	if _, stderr, code := run(t, dir, "-write-baseline="+base, "./a"); code != ExitClean {
		t.Fatalf("-write-baseline: exit %d\n%s", code, stderr)
	}
	stdout, _, code = run(t, dir, "-format=sarif", "-baseline="+base, "./a")
	if code != ExitClean {
		t.Errorf("everything in the baseline: exit %d, want %d", code, ExitClean)
	}
	for i, res := range decodeSARIF(t, stdout).Results {
		if len(res.Suppressions) != 1 {
			t.Errorf("result %d not suppressed: %+v", i, res)
		}
	}
}

// TestLoadErrorsRecorded checks that packages that do not load or
// type-check are in the SARIF and JSON output, not only on stderr.
func TestLoadErrorsRecorded(t *testing.T) {
	dir := fixture(t)
	for _, tc := range []struct {
		pkg, path, err string
		line           int
	}{
		{"./broken", "example.com/fixture/broken", "broken/broken.go:3:28: undefined: undefined", 3},
		{"./unresolved", "example.com/fixture/unresolved", "example.com/fixture/missing", 0},
	} {
		stdout, stderr, code := run(t, dir, "-format=json", tc.pkg, "./a")
		if code != ExitLoad {
			t.Errorf("%s: exit %d, want %d\n%s", tc.pkg, code, ExitLoad, stderr)
		}
		// Still go/analysis's shape: key -> name -> diagnostics or error.
		var tree map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(stdout), &tree); err != nil {
			t.Fatalf("%s: %v\n%s", tc.pkg, err, stdout)
		}
		if _, ok := tree["example.com/fixture/a"]; !ok {
			t.Errorf("%s: package a's findings are missing:\n%s", tc.pkg, stdout)
		}
		var e struct{ Error string }
		json.Unmarshal(tree[loadErrorsKey][tc.path], &e)
		if !strings.Contains(e.Error, tc.err) {
			t.Errorf("%s: JSON %s.%s.error = %q, want it to contain %q:\n%s", tc.pkg, loadErrorsKey, tc.path, e.Error, tc.err, stdout)
		}
		if len(tree[loadErrorsKey]) != 1 {
			t.Errorf("%s: %d load errors, want 1:\n%s", tc.pkg, len(tree[loadErrorsKey]), stdout)
		}

		stdout, _, _ = run(t, dir, "-format=sarif", tc.pkg, "./a")
		r := decodeSARIF(t, stdout)
		if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].ToolExecutionNotifications) != 1 {
			t.Fatalf("%s: invocations %+v", tc.pkg, r.Invocations)
		}
		n := r.Invocations[0].ToolExecutionNotifications[0]
		if n.Level != "error" || !strings.Contains(n.Message.Text, tc.path) || !strings.Contains(n.Message.Text, tc.err) {
			t.Errorf("%s: notification %+v", tc.pkg, n)
		}
		if tc.line > 0 && (len(n.Locations) != 1 || n.Locations[0].PhysicalLocation.Region.StartLine != tc.line || n.Locations[0].PhysicalLocation.ArtifactLocation.URI != "broken/broken.go") {
			t.Errorf("%s: notification locations %+v", tc.pkg, n.Locations)
		}
		if len(r.Results) == 0 {
			t.Errorf("%s: no results for package a", tc.pkg)
		}
	}

	// Without load errors, JSON is exactly go/analysis's tree.
	stdout, _, _ := run(t, dir, "-format=json", "./a")
	if strings.Contains(stdout, loadErrorsKey) {
		t.Errorf("%s in a run without load errors", loadErrorsKey)
	}
}

func TestLoadErrorsParse(t *testing.T) {
	text := "go: downloading example.com/x v1.0.0\n" +
		"# example.com/m/b\n" +
		"b/b.go:1:34: cannot use \"x\" as int value\n" +
		"b/b.go:2:1: too many errors\n" +
		"# example.com/m/q\n" +
		"# [example.com/m/q]\n" +
		"q/q_test.go:1:34: undefined: x"
	got := loadErrors(text, false, nil, []string{"./..."})
	want := []loadError{
		{"example.com/m/b", "b/b.go:1:34: cannot use \"x\" as int value\nb/b.go:2:1: too many errors"},
		{"example.com/m/q", "q/q_test.go:1:34: undefined: x"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("loadErrors:\n%q\nwant\n%q", got, want)
	}

	// Text before any header: the load errors of go list when some
	// packages did not load, else put under the patterns.
	unloaded := []loadError{{"example.com/m/u", "u/u.go:3:8: no required module provides package example.com/missing"}}
	text = "u/u.go:3:8: no required module provides package example.com/missing; to add it:\n\tgo get example.com/missing"
	if got := loadErrors(text, true, unloaded, []string{"./..."}); len(got) != 1 || got[0] != unloaded[0] {
		t.Errorf("partial: %q", got)
	}
	text = "go: go.mod file not found in current directory or any parent directory"
	if got := loadErrors(text, false, nil, []string{"./...", "./x"}); len(got) != 1 || got[0] != (loadError{"./... ./x", text}) {
		t.Errorf("no package: %q", got)
	}
}

// TestRendererLines checks the line index against files with and
// without a final newline, with CRLF line endings and empty.
func TestRendererLines(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		src   string
		lines []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a\nbc\n", []string{"a", "bc"}},
		{"a\nbc", []string{"a", "bc"}},
		{"a\r\n\r\nb\r\n", []string{"a", "", "b"}},
		{"\n\nx", []string{"", "", "x"}},
	} {
		path := filepath.Join(dir, "f.go")
		os.WriteFile(path, []byte(tc.src), 0o666)
		r := newRenderer(dir, dir, nil, false)
		for n := 0; n <= len(tc.lines)+1; n++ {
			got, ok := r.line(path, n)
			if wantOK := n >= 1 && n <= len(tc.lines); ok != wantOK || ok && got != tc.lines[n-1] {
				t.Errorf("%q: line %d = %q, %v", tc.src, n, got, ok)
			}
		}
		// offsetPos agrees with counting newlines.
		for off := 0; off <= len(tc.src); off++ {
			line := 1 + strings.Count(tc.src[:off], "\n")
			col := off - strings.LastIndex(tc.src[:off], "\n")
			if p := r.offsetPos(path, off); p.Line != line || p.Col != col {
				t.Errorf("%q: offsetPos(%d) = %d:%d, want %d:%d", tc.src, off, p.Line, p.Col, line, col)
			}
		}
	}
	path := filepath.Join(dir, "u.go")
	os.WriteFile(path, []byte("x\n\tü := \"é\"\n"), 0o666)
	r := newRenderer(dir, dir, nil, false)
	if p := r.offsetPos(path, len("x\n\tü := \"é")); p.Line != 2 || p.Col != 9 {
		t.Errorf("offsetPos in code points: %d:%d, want 2:9", p.Line, p.Col)
	}
	if c := r.column(Position{path, 2, len("\tü := \"é") + 1}); c != 9 {
		t.Errorf("column: %d, want 9", c)
	}
}
