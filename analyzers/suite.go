// Package analyzers lists cancelcheck's checks. Each check lives in its own
// package below this one and exports Analyzer (the default configuration),
// Config and New(Config).
package analyzers

import (
	"bytes"
	"encoding/json"
	"fmt"

	"golang.org/x/tools/go/analysis"
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
}

// check registers a check whose package exports New(Config).
func check[C any](a *analysis.Analyzer, since string, newFn func(C) *analysis.Analyzer) Check {
	return Check{
		Analyzer: a,
		Since:    since,
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
