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
// of `//cancelcheck:ignore detachedctx <reason>` and is read as one.
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
)

// Prefix starts a line directive; FilePrefix a file-wide one.
const (
	Prefix     = "//cancelcheck:ignore"
	FilePrefix = "//cancelcheck:file-ignore"
	// legacy is detachedctx's older spelling.
	legacy = "detached:"
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
