package plugin

import (
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"github.com/cancelcheck/cancelcheck/analyzers"
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
