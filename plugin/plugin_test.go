package plugin

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/golangci/plugin-module-register/register"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/config"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

func names(p *plugin) []string {
	var ns []string
	for _, a := range p.analyzers {
		ns = append(ns, a.Name)
	}
	return ns
}

func TestRegistered(t *testing.T) {
	newFn, err := register.GetPlugin(Name)
	if err != nil {
		t.Fatal(err)
	}
	lp, err := newFn(nil)
	if err != nil {
		t.Fatal(err)
	}
	if lp.GetLoadMode() != register.LoadModeTypesInfo {
		t.Errorf("load mode %q", lp.GetLoadMode())
	}
	as, err := lp.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	// Every check that is on by default, and the directive check.
	want := 1
	for _, c := range analyzers.Checks {
		if !c.OffByDefault {
			want++
		}
	}
	if len(as) != want {
		t.Errorf("BuildAnalyzers returned %d analyzers, want %d", len(as), want)
	}
}

func TestSettings(t *testing.T) {
	// golangci-lint hands the settings over as decoded YAML.
	p, err := newPlugin(analyzers.Checks, map[string]any{
		"checks": map[string]any{"directive": false},
		"tests":  false,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names(p) {
		if n == "directive" {
			t.Errorf("checks: {directive: false} left directive on: %v", names(p))
		}
	}
	for _, tc := range []struct {
		settings any
		want     string
	}{
		{map[string]any{"chekcs": map[string]any{}}, `linters.settings.custom.cancelcheck.settings: unknown key "chekcs"; allowed: checks, settings, tests`},
		{map[string]any{"checks": map[string]any{"nosuch": true}}, `no check named "nosuch"`},
		{map[string]any{"settings": map[string]any{"directive": map[string]any{"x": 1}}}, `settings.directive: unknown key "x"; this check has no settings`},
	} {
		_, err := newPlugin(analyzers.Checks, tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("settings %v: error %v, want it to contain %q", tc.settings, err, tc.want)
		}
	}
}

// TestForGolangci checks what golangci-lint is handed: the first fix only
// (it applies a finding's fixes together, so alternatives conflict) and
// related places in the message, capped (it makes each related place an
// issue of its own).
func TestForGolangci(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("/src/a.go", -1, 1000)
	g := fset.AddFile("/src/b.go", -1, 1000)
	lines := make([]int, 100)
	for i := range lines {
		lines[i] = i * 10
	}
	f.SetLines(lines)
	g.SetLines(lines)
	fix := func(m string) analysis.SuggestedFix { return analysis.SuggestedFix{Message: m} }
	d := analysis.Diagnostic{
		Pos:            f.Pos(30),
		Message:        "the cancel function is not called",
		SuggestedFixes: []analysis.SuggestedFix{fix("first"), fix("second")},
		Related: []analysis.RelatedInformation{
			{Pos: f.Pos(120), Message: "this return leaks it"},
			{Pos: g.Pos(50), Message: "\tand this one"},
			{Pos: f.Pos(200), Message: "third"},
			{Pos: f.Pos(300), Message: "fourth"},
			{Pos: f.Pos(400), Message: "fifth"},
		},
	}
	got := forGolangci(fset, d)
	if len(got.SuggestedFixes) != 1 || got.SuggestedFixes[0].Message != "first" {
		t.Errorf("fixes = %v, want the first only", got.SuggestedFixes)
	}
	if got.Related != nil {
		t.Errorf("related information left: %v", got.Related)
	}
	want := "the cancel function is not called (see line 13: this return leaks it; b.go:6: and this one; line 21: third; and 2 more)"
	if got.Message != want {
		t.Errorf("message\n got %q\nwant %q", got.Message, want)
	}
	if len(d.SuggestedFixes) != 2 || len(d.Related) != 5 {
		t.Errorf("the original diagnostic was modified")
	}
	plain := analysis.Diagnostic{Message: "m", SuggestedFixes: []analysis.SuggestedFix{fix("only")}}
	if got := forGolangci(fset, plain); got.Message != "m" || len(got.SuggestedFixes) != 1 {
		t.Errorf("a diagnostic with one fix and no related places changed: %+v", got)
	}
}

// TestDocExample decodes the settings the package doc shows, so the
// example cannot name a key that does not exist.
func TestDocExample(t *testing.T) {
	src, err := os.ReadFile("plugin.go")
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	indent := -1
	for _, line := range strings.Split(string(src), "\n") {
		text, ok := strings.CutPrefix(line, "//\t")
		switch {
		case !ok && indent >= 0:
		case !ok:
			continue
		case indent < 0 && strings.HasPrefix(strings.TrimSpace(text), "settings:") && strings.Contains(text, "#"):
			indent = len(text) - len(strings.TrimLeft(text, " ")) + 2
			continue
		case indent >= 0:
			if len(text) > indent && strings.TrimSpace(text[:indent]) == "" {
				block = append(block, text[indent:])
				continue
			}
		default:
			continue
		}
		if indent >= 0 {
			break
		}
	}
	if len(block) == 0 {
		t.Fatal("found no settings example in the package doc")
	}
	file := filepath.Join(t.TempDir(), config.FileName)
	if err := os.WriteFile(file, []byte(strings.Join(block, "\n")+"\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(file, directive.WithSuite(analyzers.Checks)); err != nil {
		t.Errorf("the package doc's settings do not decode:\n%s\n%v", strings.Join(block, "\n"), err)
	}
}
