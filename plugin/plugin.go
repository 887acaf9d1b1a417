// Package plugin registers cancelcheck as a golangci-lint v2 module
// plugin named "cancelcheck".
//
// Build a custom golangci-lint with it (see .custom-gcl.yml), then enable
// it in .golangci.yml:
//
//	version: "2"
//	linters:
//	  enable: [cancelcheck]
//	  settings:
//	    custom:
//	      cancelcheck:
//	        type: module
//	        description: finds cancellation misuse
//	        settings:           # the same keys as .cancelcheck.yml
//	          checks: {untrackedgo: false}
//	          settings:
//	            leaseleak:
//	              leases: [{acquire: example.com/pool.Get, release: Put}]
//
// The settings decode strictly into the same configuration as
// .cancelcheck.yml: an unknown key, check or setting is an error.
//
// Two things differ from the other drivers, because of how golangci-lint
// turns diagnostics into issues. A finding hands golangci-lint only its
// first suggested fix: golangci-lint --fix treats a finding's alternative
// fixes as edits to apply together, finds them overlapping and applies
// no cancelcheck edit in the file. And a finding's related places (the
// returns that leak a lease, the other sends of a channel) are said in
// its message, "(see line 12: ...)", instead of as related information:
// golangci-lint would make each one an issue of its own, on a line of
// its own, where it hides other linters' issues on that line.
package plugin

import (
	"encoding/json"
	"fmt"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/config"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

// Name is the plugin's name in .golangci.yml.
const Name = "cancelcheck"

// settingsSource names the settings in error messages.
const settingsSource = ".golangci.yml linters.settings.custom.cancelcheck.settings"

func init() { register.Plugin(Name, New) }

type plugin struct {
	analyzers []*analysis.Analyzer
}

// New builds the plugin from its golangci-lint settings.
func New(settings any) (register.LinterPlugin, error) {
	return newPlugin(analyzers.Checks, settings)
}

func newPlugin(checks []analyzers.Check, settings any) (*plugin, error) {
	checks = directive.WithSuite(checks)
	js, err := json.Marshal(settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", settingsSource, err)
	}
	cfg, err := config.Decode(js, settingsSource, checks)
	if err != nil {
		return nil, err
	}
	as, err := cfg.Analyzers(checks)
	if err != nil {
		return nil, err
	}
	for i, a := range as {
		as[i] = adapt(a, !cfg.IncludeTests())
	}
	return &plugin{analyzers: as}, nil
}

func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return p.analyzers, nil }

func (p *plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// maxRelated is how many related places a message names.
const maxRelated = 3

// adapt returns a copy of a whose diagnostics golangci-lint can use (see
// the package doc): only the first suggested fix, related places folded
// into the message. With skipTests it also drops diagnostics in _test.go
// files (the tests: false setting; golangci-lint's run.tests: false also
// works).
func adapt(a *analysis.Analyzer, skipTests bool) *analysis.Analyzer {
	c := *a
	c.Run = func(pass *analysis.Pass) (any, error) {
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			tf := pass.Fset.File(d.Pos)
			if skipTests && tf != nil && strings.HasSuffix(tf.Name(), "_test.go") {
				return
			}
			pass.Report(forGolangci(pass.Fset, d))
		}
		return a.Run(&p)
	}
	return &c
}

// forGolangci returns d with at most one suggested fix and its related
// places said in the message.
func forGolangci(fset *token.FileSet, d analysis.Diagnostic) analysis.Diagnostic {
	if len(d.SuggestedFixes) > 1 {
		d.SuggestedFixes = d.SuggestedFixes[:1]
	}
	if len(d.Related) == 0 {
		return d
	}
	here := fset.Position(d.Pos)
	var parts []string
	for i, r := range d.Related {
		if i == maxRelated {
			parts = append(parts, fmt.Sprintf("and %d more", len(d.Related)-maxRelated))
			break
		}
		pos := fset.Position(r.Pos)
		where := fmt.Sprintf("line %d", pos.Line)
		if pos.Filename != here.Filename {
			where = fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
		}
		parts = append(parts, where+": "+strings.TrimSpace(r.Message))
	}
	d.Message += " (see " + strings.Join(parts, "; ") + ")"
	d.Related = nil
	return d
}
