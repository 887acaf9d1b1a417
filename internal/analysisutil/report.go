package analysisutil

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// DirectivePrefix starts a suppression comment. The full form is
//
//	//cancelcheck:ignore <check> <reason>
//
// placed at the end of the reported line or alone on the line above it. The
// reason is mandatory: a directive without one silences nothing and is
// reported, and so is a directive that silences no finding of its check.
const DirectivePrefix = "//cancelcheck:ignore"

type directive struct {
	comment *ast.Comment
	check   string
	reason  string
	used    bool
}

type lineKey struct {
	file *token.File
	line int
}

// Reporter reports a check's diagnostics, dropping those in generated files
// and those silenced by a directive. Call Finish once at the end of the pass
// so unused or malformed directives are reported.
type Reporter struct {
	pass      *analysis.Pass
	generated map[*token.File]bool
	cgo       map[*token.File]bool // files rewritten by cmd/cgo: report, but offer no fix
	dirs      map[lineKey][]*directive
	all       []*directive
}

// NewReporter returns a Reporter for pass, indexing the directives that name
// pass.Analyzer.
func NewReporter(pass *analysis.Pass) *Reporter {
	r := &Reporter{
		pass:      pass,
		generated: make(map[*token.File]bool),
		cgo:       make(map[*token.File]bool),
		dirs:      make(map[lineKey][]*directive),
	}
	name := pass.Analyzer.Name
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.FileStart)
		if tf == nil {
			continue
		}
		if IsGenerated(pass.Fset, f) {
			r.generated[tf] = true
			continue
		}
		if IsCgoOutput(pass.Fset, f) {
			r.cgo[tf] = true
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, DirectivePrefix) {
					continue
				}
				rest := strings.TrimPrefix(c.Text, DirectivePrefix)
				if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
					continue // e.g. //cancelcheck:ignored
				}
				check, reason, _ := strings.Cut(strings.TrimSpace(rest), " ")
				if check != name {
					continue
				}
				d := &directive{comment: c, check: check, reason: strings.TrimSpace(reason)}
				r.all = append(r.all, d)
				line := tf.Line(c.Pos())
				// A directive covers its own line (trailing comment) and the
				// line below (a comment on the line above the finding).
				for _, l := range []int{line, line + 1} {
					k := lineKey{tf, l}
					r.dirs[k] = append(r.dirs[k], d)
				}
			}
		}
	}
	return r
}

// InGenerated reports whether pos lies in a generated file, which checks
// neither report nor rewrite.
func (r *Reporter) InGenerated(pos token.Pos) bool {
	return r.generated[r.pass.Fset.File(pos)]
}

// Report reports d unless it is in a generated file or silenced.
func (r *Reporter) Report(d analysis.Diagnostic) {
	tf := r.pass.Fset.File(d.Pos)
	if tf == nil || r.generated[tf] {
		return
	}
	silenced := false
	for _, dir := range r.dirs[lineKey{tf, tf.Line(d.Pos)}] {
		if dir.reason != "" {
			dir.used = true
			silenced = true
		}
	}
	if silenced {
		return
	}
	if r.cgo[tf] {
		// The drivers cannot apply edits to cmd/cgo's output (they skip it
		// as generated), and the edits' offsets are not the user file's.
		d.SuggestedFixes = nil
	}
	if d.Category == "" {
		d.Category = r.pass.Analyzer.Name
	}
	r.pass.Report(d)
}

// Finish reports directives for this check that lack a reason or silenced
// nothing.
func (r *Reporter) Finish() {
	for _, d := range r.all {
		switch {
		case d.reason == "":
			r.pass.Report(analysis.Diagnostic{
				Pos:      d.comment.Pos(),
				End:      d.comment.End(),
				Category: "directive",
				Message:  "this " + DirectivePrefix + " directive for " + d.check + " has no reason, so it silences nothing; write the reason after the check name",
			})
		case !d.used:
			r.pass.Report(analysis.Diagnostic{
				Pos:      d.comment.Pos(),
				End:      d.comment.End(),
				Category: "directive",
				Message:  "this " + DirectivePrefix + " directive silences no " + d.check + " finding on this or the next line; remove it",
			})
		}
	}
}
