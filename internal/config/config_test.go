package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o777); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != "" && strings.HasPrefix(got, root) {
		t.Errorf("Find with no file = %q", got)
	}
	want := filepath.Join(root, "a", FileName)
	if err := os.WriteFile(want, []byte("tests: false\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != want {
		t.Errorf("Find(%s) = %q, want %q", deep, got, want)
	}
	cfg, err := Load(want, directive.WithSuite(analyzers.Checks))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.IncludeTests() {
		t.Errorf("tests: false not read")
	}
}

func TestDecode(t *testing.T) {
	checks := directive.WithSuite(analyzers.Checks)
	for _, js := range []string{"", "null", "{}", `{"checks": {"directive": false}}`} {
		cfg, err := Decode([]byte(js), "s", checks)
		if err != nil {
			t.Errorf("Decode(%q): %v", js, err)
			continue
		}
		as, err := cfg.Analyzers(checks)
		if err != nil {
			t.Fatal(err)
		}
		hasDirective := false
		for _, a := range as {
			hasDirective = hasDirective || a.Name == directive.Name
		}
		if hasDirective == strings.Contains(js, "directive") {
			t.Errorf("Decode(%q): directive on = %v", js, hasDirective)
		}
	}
	for js, want := range map[string]string{
		`[]`:                             "s: the configuration must be a mapping",
		`{"tests": "no"}`:                `s: tests must be true or false, not "no"`,
		`{"checks": []}`:                 "s: checks must map check names to true or false",
		`{"settings": {"directive": 3}}`: "s: settings.directive: must be a mapping of setting names to values, not 3",
	} {
		if _, err := Decode([]byte(js), "s", checks); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want %q", js, err, want)
		}
	}
}

func TestYAMLErrors(t *testing.T) {
	for yml, want := range map[string]string{
		"checks:\n  directive: true\n  directive: false\n": `line 3: key "checks.directive" appears twice`,
		"? [a]\n: 1\n": "line 1: mapping keys must be plain names",
	} {
		path := filepath.Join(t.TempDir(), FileName)
		os.WriteFile(path, []byte(yml), 0o666)
		if _, err := Load(path, directive.WithSuite(nil)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%q) = %v, want %q", yml, err, want)
		}
	}
}
