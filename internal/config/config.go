// Package config reads cancelcheck's configuration: the .cancelcheck.yml
// file, or the same settings given to the golangci-lint plugin, and binds
// it to the suite's checks.
//
// The file looks like this:
//
//	# .cancelcheck.yml
//	tests: true            # analyze _test.go files (the default)
//	checks:                # turn checks on or off; unnamed checks keep their default
//	  untrackedgo: false
//	settings:              # per-check settings, decoded strictly into the check's Config
//	  leaseleak:
//	    leases: [{acquire: example.com/pool.Get, release: Put}]
//
// Every key is checked: an unknown key, check or setting is an error naming
// the file, the key and what is allowed, never a silent default.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

// FileName is the name of the configuration file, looked up from a
// directory towards the file-system root.
const FileName = ".cancelcheck.yml"

// Config is cancelcheck's configuration. The zero value runs every check
// that is on by default, with default settings, on test files too.
type Config struct {
	// Checks turns checks on (true) or off (false) by name.
	Checks map[string]bool `json:"checks,omitempty"`
	// Tests says whether _test.go files are analyzed; nil means yes.
	Tests *bool `json:"tests,omitempty"`
	// Settings holds each check's settings, by check name; each is decoded
	// strictly into that check's Config.
	Settings map[string]json.RawMessage `json:"settings,omitempty"`

	// Source names where the configuration came from, for error messages
	// (a file name, or the golangci-lint settings path). Not decoded.
	Source string `json:"-"`
	// lines maps a dotted key path to its line in Source, when known.
	lines map[string]int
}

// topKeys are the keys allowed at the top level, for error messages.
var topKeys = []string{"checks", "settings", "tests"}

// IncludeTests reports whether test files are analyzed.
func (c *Config) IncludeTests() bool { return c == nil || c.Tests == nil || *c.Tests }

// Find returns the configuration file that applies to dir: dir's own
// .cancelcheck.yml or the nearest one in a parent directory. It returns ""
// when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads and validates the configuration file at path against checks.
func Load(path string, checks []analyzers.Check) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	js, lines, err := yamlToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return decode(js, path, lines, checks)
}

// Decode reads a configuration given as JSON (for example the
// golangci-lint plugin's settings, re-encoded) and validates it against
// checks; source names it in error messages.
func Decode(js []byte, source string, checks []analyzers.Check) (*Config, error) {
	return decode(js, source, nil, checks)
}

func decode(js []byte, source string, lines map[string]int, checks []analyzers.Check) (*Config, error) {
	c := &Config{Source: source, lines: lines}
	trimmed := bytes.TrimSpace(js)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return c, nil
	}
	// Check the top-level keys ourselves so the message can list them.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return nil, fmt.Errorf("%s: the configuration must be a mapping with the keys %s: %v", source, strings.Join(topKeys, ", "), err)
	}
	for k := range top {
		if !slices.Contains(topKeys, k) {
			return nil, c.errorf(k, "unknown key %q; allowed: %s", k, strings.Join(topKeys, ", "))
		}
	}
	if raw, ok := top["tests"]; ok {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, c.errorf("tests", "tests must be true or false, not %s", raw)
		}
		c.Tests = &b
	}
	if raw, ok := top["checks"]; ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, c.errorf("checks", "checks must map check names to true or false, not %s", raw)
		}
		c.Checks = make(map[string]bool)
		for name, v := range m {
			if _, ok := lookup(checks, name); !ok {
				return nil, c.errorf("checks."+name, "checks: no check named %q; known checks: %s", name, names(checks))
			}
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				return nil, c.errorf("checks."+name, "checks.%s must be true or false, not %s", name, v)
			}
			c.Checks[name] = b
		}
	}
	if raw, ok := top["settings"]; ok {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, c.errorf("settings", "settings must map check names to their settings, not %s", raw)
		}
		c.Settings = m
		for name, v := range m {
			chk, ok := lookup(checks, name)
			if !ok {
				return nil, c.errorf("settings."+name, "settings: no check named %q; known checks: %s", name, names(checks))
			}
			if err := validateSettings(chk, v); err != nil {
				return nil, c.errorf(settingsKeyPath(name, err), "settings.%s: %v", name, err)
			}
		}
	}
	return c, nil
}

// settingsError is a setting problem, naming the offending key if known.
type settingsError struct {
	key string
	msg string
}

func (e *settingsError) Error() string { return e.msg }

func settingsKeyPath(check string, err error) string {
	if se, ok := err.(*settingsError); ok && se.key != "" {
		return "settings." + check + "." + se.key
	}
	return "settings." + check
}

// validateSettings checks v's keys against the check's Config fields, then
// lets the check decode it strictly.
func validateSettings(chk analyzers.Check, v json.RawMessage) error {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	if t[0] != '{' {
		return &settingsError{msg: fmt.Sprintf("must be a mapping of setting names to values, not %s", t)}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return &settingsError{msg: err.Error()}
	}
	allowed := chk.SettingKeys()
	for k := range m {
		if !slices.Contains(allowed, k) {
			what := "this check has no settings"
			if len(allowed) > 0 {
				what = "allowed: " + strings.Join(allowed, ", ")
			}
			return &settingsError{key: k, msg: fmt.Sprintf("unknown key %q; %s", k, what)}
		}
	}
	if chk.Configure == nil {
		return nil
	}
	if _, err := chk.Configure(t); err != nil {
		return &settingsError{msg: strings.TrimPrefix(err.Error(), "settings of "+chk.Analyzer.Name+": ")}
	}
	return nil
}

func (c *Config) errorf(path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if line, ok := c.lines[path]; ok {
		return fmt.Errorf("%s:%d: %s", c.Source, line, msg)
	}
	return fmt.Errorf("%s: %s", c.Source, msg)
}

func lookup(checks []analyzers.Check, name string) (analyzers.Check, bool) {
	for _, c := range checks {
		if c.Analyzer.Name == name {
			return c, true
		}
	}
	return analyzers.Check{}, false
}

func names(checks []analyzers.Check) string {
	var ns []string
	for _, c := range checks {
		ns = append(ns, c.Analyzer.Name)
	}
	sort.Strings(ns)
	if len(ns) == 0 {
		return "(none)"
	}
	return strings.Join(ns, ", ")
}

// Enabled reports whether the check is on under c: an explicit entry in
// Checks wins, else the check's default.
func (c *Config) Enabled(chk analyzers.Check) bool {
	if c != nil {
		if on, ok := c.Checks[chk.Analyzer.Name]; ok {
			return on
		}
	}
	return !chk.OffByDefault
}

// Analyzers returns the enabled checks bound to their settings, in suite
// order. The result is keyed by check name too, so a driver can turn
// checks on or off again from its command line.
func (c *Config) Analyzers(checks []analyzers.Check) ([]*analysis.Analyzer, error) {
	var out []*analysis.Analyzer
	for _, chk := range checks {
		if !c.Enabled(chk) {
			continue
		}
		a, err := c.Bind(chk)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Bind returns chk configured with its settings from c.
func (c *Config) Bind(chk analyzers.Check) (*analysis.Analyzer, error) {
	var raw json.RawMessage
	if c != nil {
		raw = c.Settings[chk.Analyzer.Name]
	}
	if len(bytes.TrimSpace(raw)) == 0 || chk.Configure == nil {
		return chk.Analyzer, nil
	}
	a, err := chk.Configure(raw)
	if err != nil {
		return nil, c.errorf("settings."+chk.Analyzer.Name, "settings.%s: %v", chk.Analyzer.Name, err)
	}
	return a, nil
}
