// Package directives parses cancelcheck's suppression directives once per
// package, for every check to read.
//
// # Analyzer directives
//
// directives: parse the //cancelcheck:ignore directives of a package
//
// directives reports nothing. Its result, a *Result, lists the package's
// suppression comments:
//
//	//cancelcheck:ignore <checks> <reason>
//	//cancelcheck:file-ignore <checks> <reason>
//
// where <checks> is one check name or several separated by commas
// (swallowcancel,leaseleak), and the fields are separated by spaces or tabs.
// The first form covers its own line (a trailing comment) and the next (a
// comment alone on the line above the finding); the second covers its whole
// file. A detachedctx `// detached: <reason>` comment is the older spelling
// of `//cancelcheck:ignore detachedctx <reason>` and is read as one. So is
// golangci-lint's `//nolint:<linters>` for the linters whose ground a check
// covers (knowledge.ForeignLinters: contextcheck and noctx for detachedctx,
// bodyclose, sqlclosecheck and spancheck for leaseleak, errorlint for
// foldedtimeout, nilerr for swallowcancel): the reviewer's judgment that
// the code is deliberate holds for the check that reports the same thing.
// Comments of generated files are not read: their findings are never
// reported.
//
// Each check's Reporter (internal/analysisutil) silences its findings with
// the directives that name it and reports those that silenced nothing; the
// directive check reports directives that name no check or give no
// reason.
package directives

import (
	"go/ast"
	"go/token"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// Prefix starts a line directive; FilePrefix a file-wide one.
const (
	Prefix     = "//cancelcheck:ignore"
	FilePrefix = "//cancelcheck:file-ignore"
	// legacy is detachedctx's older spelling.
	legacy = "detached:"
	// nolintPrefix starts golangci-lint's suppression of named linters.
	nolintPrefix = "//nolint:"
)

// Analyzer parses the package's directives.
var Analyzer = &analysis.Analyzer{
	Name:       "directives",
	Doc:        "directives: parse the //cancelcheck:ignore directives of a package\n\nIt reports nothing; see the package documentation.",
	URL:        "https://github.com/cancelcheck/cancelcheck/tree/main/passes/directives",
	ResultType: reflect.TypeFor[*Result](),
	Run:        func(pass *analysis.Pass) (any, error) { return Parse(pass.Fset, pass.Files), nil },
}

// Name is one check name of a directive, as written.
type Name struct {
	Text string
	Pos  token.Pos // of its first byte
}

// Directive is one suppression comment.
type Directive struct {
	Comment *ast.Comment
	File    *token.File
	Line    int // of the comment
	// Checks are the names the directive lists, in order; empty when it
	// names none. A name may be empty (a stray comma).
	Checks []Name
	// Reason is the text after the names; "" when there is none.
	Reason string
	// FileWide marks //cancelcheck:file-ignore.
	FileWide bool
	// Legacy marks a `// detached: <reason>` comment (detachedctx).
	Legacy bool
	// Foreign is the linter a `//nolint:<linter>` comment names, when the
	// directive stands for its judgment (knowledge.ForeignLinters); such
	// directives are golangci-lint's, and none is reported unused.
	Foreign string
}

// Names reports whether d lists check.
func (d *Directive) Names(check string) bool {
	for _, n := range d.Checks {
		if n.Text == check {
			return true
		}
	}
	return false
}

// Covers reports whether d applies to line of tf.
func (d *Directive) Covers(tf *token.File, line int) bool {
	return d.File == tf && (d.FileWide || line == d.Line || line == d.Line+1)
}

// Result lists a package's directives.
type Result struct {
	// All lists the directives in file and position order.
	All []*Directive
}

// For returns the directives that name check, in order.
func (r *Result) For(check string) []*Directive {
	var out []*Directive
	for _, d := range r.All {
		if d.Names(check) {
			out = append(out, d)
		}
	}
	return out
}

// Parse reads the directives of files, skipping generated files.
func Parse(fset *token.FileSet, files []*ast.File) *Result {
	r := &Result{}
	for _, f := range files {
		tf := fset.File(f.FileStart)
		if tf == nil || ast.IsGenerated(f) {
			continue
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if d := parse(tf, c); d != nil {
					r.All = append(r.All, d)
				}
			}
		}
	}
	return r
}

// parseNolint reads the linter list of a //nolint: comment (rest follows
// the colon) into d: the checks of this suite that cover the linters it
// names, with the comment's explanation (after //) as the reason, or the
// linter's name when it gives none. It returns nil when it names none of
// those linters.
func parseNolint(d *Directive, rest string) *Directive {
	list, why, _ := strings.Cut(rest, "//")
	list = strings.TrimSpace(list)
	if i := strings.IndexAny(list, " \t"); i >= 0 {
		list = list[:i]
	}
	seen := map[string]bool{}
	for _, linter := range strings.Split(list, ",") {
		for _, check := range knowledge.ForeignLinters[strings.TrimSpace(linter)] {
			if !seen[check] {
				seen[check] = true
				d.Checks = append(d.Checks, Name{Text: check, Pos: d.Comment.Pos()})
			}
			if d.Foreign == "" {
				d.Foreign = strings.TrimSpace(linter)
			}
		}
	}
	if d.Foreign == "" {
		return nil
	}
	d.Reason = strings.TrimSpace(why)
	if d.Reason == "" {
		d.Reason = "nolint:" + d.Foreign
	}
	return d
}

// parse returns the directive c spells, or nil.
func parse(tf *token.File, c *ast.Comment) *Directive {
	text := c.Text
	d := &Directive{Comment: c, File: tf, Line: tf.Line(c.Pos())}
	var rest string
	var restPos token.Pos
	switch {
	case strings.HasPrefix(text, FilePrefix):
		rest, d.FileWide = text[len(FilePrefix):], true
		restPos = c.Pos() + token.Pos(len(FilePrefix))
	case strings.HasPrefix(text, Prefix):
		rest = text[len(Prefix):]
		restPos = c.Pos() + token.Pos(len(Prefix))
	case strings.HasPrefix(text, nolintPrefix):
		return parseNolint(d, text[len(nolintPrefix):])
	default:
		body, ok := strings.CutPrefix(text, "//")
		if !ok {
			return nil
		}
		reason, ok := strings.CutPrefix(strings.TrimSpace(body), legacy)
		if !ok {
			return nil
		}
		reason, _, _ = strings.Cut(reason, "//")
		d.Legacy = true
		d.Checks = []Name{{Text: "detachedctx", Pos: c.Pos()}}
		d.Reason = strings.TrimSpace(reason)
		return d
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil // //cancelcheck:ignored, //cancelcheck:ignorefoo
	}
	trimmed := strings.TrimLeft(rest, " \t")
	namesPos := restPos + token.Pos(len(rest)-len(trimmed))
	end := strings.IndexAny(trimmed, " \t")
	if end < 0 {
		end = len(trimmed)
	}
	list := trimmed[:end]
	d.Reason = strings.TrimSpace(trimmed[end:])
	if list == "" {
		return d
	}
	off := 0
	for _, name := range strings.Split(list, ",") {
		d.Checks = append(d.Checks, Name{Text: name, Pos: namesPos + token.Pos(off)})
		off += len(name) + 1
	}
	return d
}
