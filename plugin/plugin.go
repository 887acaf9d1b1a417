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
//	            leaseleak: {lease-types: [example.com/pool.Conn]}
//
// The settings decode strictly into the same configuration as
// .cancelcheck.yml: an unknown key, check or setting is an error.
package plugin

import (
	"encoding/json"
	"fmt"
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
	if !cfg.IncludeTests() {
		for i, a := range as {
			as[i] = skipTests(a)
		}
	}
	return &plugin{analyzers: as}, nil
}

func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) { return p.analyzers, nil }

func (p *plugin) GetLoadMode() string { return register.LoadModeTypesInfo }

// skipTests returns a copy of a that drops diagnostics in _test.go files
// (the tests: false setting; golangci-lint's run.tests: false also works).
func skipTests(a *analysis.Analyzer) *analysis.Analyzer {
	c := *a
	c.Run = func(pass *analysis.Pass) (any, error) {
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			if tf := pass.Fset.File(d.Pos); tf != nil && strings.HasSuffix(tf.Name(), "_test.go") {
				return
			}
			pass.Report(d)
		}
		return a.Run(&p)
	}
	return &c
}
