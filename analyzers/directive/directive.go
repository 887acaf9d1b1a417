// Package directive exports the suite's directive check, which reports
// //cancelcheck:ignore directives that name no check of the suite, for
// drivers that list analyzers by package, such as Bazel's nogo (each
// listed package must export Analyzer). The cancelcheck command, the vet
// tool and the golangci-lint plugin include it already.
package directive

import (
	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/directive"
)

// Analyzer is the directive check, knowing every check of the suite.
var Analyzer = directive.New(names())

func names() []string {
	var out []string
	for _, c := range analyzers.Checks {
		out = append(out, c.Analyzer.Name)
	}
	return out
}
