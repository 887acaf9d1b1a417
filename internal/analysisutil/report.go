package analysisutil

import (
	"go/token"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/passes/directives"
)

// DirectivePrefix starts a suppression comment. The full form is
//
//	//cancelcheck:ignore <check>[,<check>...] <reason>
//
// placed at the end of the reported line or alone on the line above it
// (//cancelcheck:file-ignore covers its whole file; see passes/directives).
// The reason is mandatory: a directive without one silences nothing and is
// reported, and so is a directive that silences no finding of its check.
const DirectivePrefix = directives.Prefix

// Reporter reports a check's diagnostics, dropping those in generated files
// and those silenced by a directive. Call Finish once at the end of the pass
// so unused directives are reported (Finishing does it for a check that
// returns without).
type Reporter struct {
	pass      *analysis.Pass
	generated map[*token.File]bool
	cgo       map[*token.File]bool    // files rewritten by cmd/cgo: report, but offer no fix
	dirs      []*directives.Directive // those that name this check and give a reason
	used      map[*directives.Directive]bool
	finished  bool
}

// NewReporter returns a Reporter for pass, with the directives that name
// pass.Analyzer: from the directives pass when the check requires it (it
// parses them once for every check), else parsed here.
func NewReporter(pass *analysis.Pass) *Reporter {
	r := &Reporter{
		pass:      pass,
		generated: make(map[*token.File]bool),
		cgo:       make(map[*token.File]bool),
		used:      make(map[*directives.Directive]bool),
	}
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
	}
	res, _ := pass.ResultOf[directives.Analyzer].(*directives.Result)
	if res == nil {
		res = directives.Parse(pass.Fset, pass.Files)
	}
	for _, d := range res.For(pass.Analyzer.Name) {
		if d.Reason != "" && !r.generated[d.File] {
			r.dirs = append(r.dirs, d)
		}
	}
	if _, ok := running.Load(pass); ok {
		running.Store(pass, r)
	}
	return r
}

// running holds, for each pass of a check that Finishing wraps and that is
// running, its Reporter (nil until the check makes one).
var running sync.Map // *analysis.Pass -> *Reporter

// Finishing wraps a check's Run so that a pass that returns without calling
// Finish (an early bail-out: the package imports no context) still reports
// its check's stale directives.
func Finishing(run func(*analysis.Pass) (any, error)) func(*analysis.Pass) (any, error) {
	return func(pass *analysis.Pass) (any, error) {
		running.Store(pass, (*Reporter)(nil))
		res, err := run(pass)
		v, _ := running.LoadAndDelete(pass)
		r, _ := v.(*Reporter)
		if r == nil {
			r = NewReporter(pass)
		}
		r.Finish()
		return res, err
	}
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
	line := tf.Line(d.Pos)
	silenced := false
	for _, dir := range r.dirs {
		if dir.Covers(tf, line) {
			r.used[dir] = true
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

// Finish reports the directives for this check that silenced nothing
// (a directive without a reason silences nothing; the directive check
// reports it). A `// detached:` comment, detachedctx's older spelling, also
// documents code the check does not report, and is not reported; nor is a
// //nolint: comment of another linter (it is that linter's).
func (r *Reporter) Finish() {
	if r.finished {
		return
	}
	r.finished = true
	name := r.pass.Analyzer.Name
	for _, d := range r.dirs {
		if r.used[d] || d.Legacy || d.Foreign != "" {
			continue
		}
		where := "on this or the next line"
		prefix := DirectivePrefix
		if d.FileWide {
			where, prefix = "in this file", directives.FilePrefix
		}
		remove := "remove it"
		if len(d.Checks) > 1 {
			remove = "remove " + name + " from it"
		}
		r.pass.Report(analysis.Diagnostic{
			Pos:      d.Comment.Pos(),
			End:      d.Comment.End(),
			Category: "directive",
			Message:  "this " + prefix + " directive silences no " + name + " finding " + where + "; " + remove,
		})
	}
}
