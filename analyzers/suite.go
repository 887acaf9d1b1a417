// Package analyzers lists cancelcheck's checks. Each check lives in its own
// package below this one and exports Analyzer (the default configuration),
// Config and New(Config).
package analyzers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/analyzers/detachedctx"
	"github.com/cancelcheck/cancelcheck/analyzers/foldedtimeout"
	"github.com/cancelcheck/cancelcheck/analyzers/leaseleak"
	"github.com/cancelcheck/cancelcheck/analyzers/orphansend"
	"github.com/cancelcheck/cancelcheck/analyzers/retrycancel"
	"github.com/cancelcheck/cancelcheck/analyzers/swallowcancel"
	"github.com/cancelcheck/cancelcheck/analyzers/untrackedgo"
)

// Check is one reporting check of the suite.
type Check struct {
	// Analyzer is the check with its default configuration.
	Analyzer *analysis.Analyzer
	// Since is the release that introduced the check.
	Since string
	// Configure builds the check from its settings: a JSON object decoded
	// strictly (unknown keys are errors) into the check's Config. Empty
	// settings give the default Analyzer.
	Configure func(settings json.RawMessage) (*analysis.Analyzer, error)
	// OffByDefault marks a check that runs only when turned on (by flag,
	// .cancelcheck.yml or golangci-lint settings). Register such a check
	// with check(...).DefaultOff().
	OffByDefault bool

	// settingKeys are the JSON names of the Config fields.
	settingKeys []string
}

// DefaultOff returns c marked off by default.
func (c Check) DefaultOff() Check {
	c.OffByDefault = true
	return c
}

// SettingKeys returns the setting names the check accepts (the json names
// of its Config fields), for error messages and docs.
func (c Check) SettingKeys() []string { return c.settingKeys }

// Summary returns the check's one-line summary: the first line of its Doc
// without the "name: " prefix.
func (c Check) Summary() string {
	line, _, _ := strings.Cut(c.Analyzer.Doc, "\n")
	return strings.TrimSpace(strings.TrimPrefix(line, c.Analyzer.Name+":"))
}

// jsonKeys returns the json names of t's exported fields.
func jsonKeys(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		keys = append(keys, name)
	}
	return keys
}

// NewCheck returns the Check for an analyzer a whose package exports
// New(Config); checks of the suite register through check, its short name.
// Tests and other suites use it to build checks of their own.
func NewCheck[C any](a *analysis.Analyzer, since string, newFn func(C) *analysis.Analyzer) Check {
	return check(a, since, newFn)
}

// check registers a check whose package exports New(Config).
func check[C any](a *analysis.Analyzer, since string, newFn func(C) *analysis.Analyzer) Check {
	return Check{
		Analyzer:    a,
		Since:       since,
		settingKeys: jsonKeys(reflect.TypeFor[C]()),
		Configure: func(settings json.RawMessage) (*analysis.Analyzer, error) {
			if len(bytes.TrimSpace(settings)) == 0 || string(bytes.TrimSpace(settings)) == "null" {
				return a, nil
			}
			var cfg C
			dec := json.NewDecoder(bytes.NewReader(settings))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cfg); err != nil {
				return nil, fmt.Errorf("settings of %s: %v", a.Name, err)
			}
			return newFn(cfg), nil
		},
	}
}

// Checks is the suite, in the order the checks are documented.
//
// Not included, and why:
//   - lostcancel (x/tools) is subsumed by leaseleak, which also understands
//     ownership hand-offs; run it separately if you prefer it.
var Checks = []Check{
	// Checks register here, one line each (keep this marker line).
	// CHECKS
	check(leaseleak.Analyzer, "v0.1.0", leaseleak.New),
	check(swallowcancel.Analyzer, "v0.1.0", swallowcancel.New),
	check(foldedtimeout.Analyzer, "v0.1.0", foldedtimeout.New),
	check(retrycancel.Analyzer, "v0.1.0", retrycancel.New),
	check(detachedctx.Analyzer, "v0.1.0", detachedctx.New),
	check(untrackedgo.Analyzer, "v0.1.0", untrackedgo.New),
	check(orphansend.Analyzer, "v0.1.0", orphansend.New),
}

// All returns the analyzers of Checks with their default configuration.
func All() []*analysis.Analyzer {
	out := make([]*analysis.Analyzer, len(Checks))
	for i, c := range Checks {
		out[i] = c.Analyzer
	}
	return out
}

// Lookup returns the check named name.
func Lookup(name string) (Check, bool) {
	for _, c := range Checks {
		if c.Analyzer.Name == name {
			return c, true
		}
	}
	return Check{}, false
}
