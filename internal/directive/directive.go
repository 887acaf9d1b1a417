// Package directive defines the analyzer that checks the suppression
// directives themselves:
//
//	//cancelcheck:ignore <check> <reason>
//
// Each check's Reporter (internal/analysisutil) handles the directives that
// name it: it reports one without a reason and one that silences nothing.
// A directive that names no check of the suite is reported here, with a fix
// when the name is a near miss of a real check, because otherwise it would
// silently silence nothing forever.
package directive

import (
	"go/token"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/directives"
)

// Name is the analyzer's name, and the check name its findings carry.
const Name = "directive"

// Doc is the analyzer's documentation.
const Doc = Name + `: report //cancelcheck:ignore directives that name no check

A suppression directive has the form

	//cancelcheck:ignore <check> <reason>

on the reported line or alone on the line above it. A directive whose check
name is misspelt, or names a check that does not exist, silences nothing;
this analyzer reports it, and offers to correct a near miss.`

// New returns the analyzer, given the names of every check of the suite
// (on or off: a directive for a check that is off is not unknown).
func New(known []string) *analysis.Analyzer {
	names := append([]string(nil), known...)
	sort.Strings(names)
	return &analysis.Analyzer{
		Name:     Name,
		Doc:      Doc,
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/suppression.md",
		Requires: []*analysis.Analyzer{directives.Analyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			for _, d := range pass.ResultOf[directives.Analyzer].(*directives.Result).All {
				check(pass, d, names)
			}
			return nil, nil
		},
	}
}

func check(pass *analysis.Pass, d *directives.Directive, known []string) {
	c := d.Comment
	prefix := analysisutil.DirectivePrefix
	if d.FileWide {
		prefix = directives.FilePrefix
	}
	if len(d.Checks) == 0 {
		pass.Report(analysis.Diagnostic{
			Pos:      c.Pos(),
			End:      c.End(),
			Category: Name,
			Message:  "this " + prefix + " directive names no check, so it silences nothing; write " + prefix + " <check> <reason>",
		})
		return
	}
	for _, n := range d.Checks {
		name := n.Text
		if name == "" {
			pass.Report(analysis.Diagnostic{
				Pos:      c.Pos(),
				End:      c.End(),
				Category: Name,
				Message:  "this " + prefix + " directive has an empty check name (a stray comma); list the checks as check1,check2",
			})
			continue
		}
		if i := sort.SearchStrings(known, name); i < len(known) && known[i] == name {
			continue
		}
		diag := analysis.Diagnostic{
			Pos:      c.Pos(),
			End:      c.End(),
			Category: Name,
			Message:  "this " + prefix + " directive names " + name + ", which is not a cancelcheck check, so it silences nothing",
		}
		if best := nearest(name, known); best != "" {
			diag.Message += "; did you mean " + best + "?"
			diag.SuggestedFixes = []analysis.SuggestedFix{{
				Message: "Replace " + name + " with " + best,
				TextEdits: []analysis.TextEdit{{
					Pos:     n.Pos,
					End:     n.Pos + token.Pos(len(name)),
					NewText: []byte(best),
				}},
			}}
		} else if len(known) > 0 {
			diag.Message += "; known checks: " + strings.Join(known, ", ")
		}
		pass.Report(diag)
	}
	if d.Reason == "" {
		what := "this " + prefix + " directive"
		if d.Legacy {
			what = "this // detached: comment"
		}
		pass.Report(analysis.Diagnostic{
			Pos:      c.Pos(),
			End:      c.End(),
			Category: Name,
			Message:  what + " gives no reason, so it silences nothing; write why the finding is fine after the check names",
		})
	}
}

// nearest returns the known name within edit distance 2 of name, if exactly
// one is closest.
func nearest(name string, known []string) string {
	best, bestDist, tie := "", 3, false
	for _, k := range known {
		d := distance(name, k)
		switch {
		case d < bestDist:
			best, bestDist, tie = k, d, false
		case d == bestDist:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// WithSuite returns checks followed by the directive check, which knows
// their names. Drivers run this list.
func WithSuite(checks []analyzers.Check) []analyzers.Check {
	var names []string
	for _, c := range checks {
		names = append(names, c.Analyzer.Name)
	}
	out := append([]analyzers.Check(nil), checks...)
	return append(out, analyzers.Check{Analyzer: New(names), Since: "v0.1.0"})
}
