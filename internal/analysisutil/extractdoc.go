package analysisutil

import (
	"fmt"
	"strings"
)

// MustExtractDoc returns the documentation of the analyzer called name from
// the package comment of content, the text of a doc.go file. The package
// comment must contain a "# Analyzer name" heading; the documentation is
// everything after it up to the next "# " heading. It panics on a malformed
// doc.go, which a test of every check catches.
//
// Keeping the documentation in the package comment means `go doc`, the
// analyzer's Doc, `cancelcheck -explain` and docs/<check>.md share one source.
func MustExtractDoc(content, name string) string {
	doc, err := ExtractDoc(content, name)
	if err != nil {
		panic(err)
	}
	return doc
}

// ExtractDoc is MustExtractDoc returning an error instead of panicking.
func ExtractDoc(content, name string) (string, error) {
	if content == "" {
		return "", fmt.Errorf("empty Go source file")
	}
	text, err := packageComment(content)
	if err != nil {
		return "", err
	}
	heading := "# Analyzer " + name
	_, rest, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("package doc comment has no %q heading", heading)
	}
	if i := strings.Index(rest, "\n# "); i >= 0 {
		rest = rest[:i]
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, name+": ") {
		return "", fmt.Errorf("analyzer doc must start with %q", name+": ")
	}
	return rest, nil
}

// packageComment returns the text of the // comment block right above the
// package clause of a doc.go file, as ast.CommentGroup.Text would. It does
// not use go/parser: every analyzer's Doc is extracted when the vet tool
// starts, once per package vetted, and parsing cost 2% of a go vet run.
func packageComment(content string) (string, error) {
	var block []string // the current run of // lines
	for line := range strings.Lines(content) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "//"):
			block = append(block, trimmed[2:])
		case strings.HasPrefix(trimmed, "package ") || trimmed == "package":
			if len(block) == 0 {
				return "", fmt.Errorf("no package doc comment in Go source file")
			}
			return commentText(block), nil
		case trimmed == "":
			block = nil // a blank line ends a comment group
		case strings.HasPrefix(trimmed, "/*"):
			return "", fmt.Errorf("doc.go must use // comments")
		default:
			return "", fmt.Errorf("not a doc.go file: %q before the package clause", trimmed)
		}
	}
	return "", fmt.Errorf("not a Go source file: no package clause")
}

// commentText is ast.CommentGroup.Text for // comments whose markers are
// already removed: it drops directives (//go:embed), one leading space,
// trailing spaces, leading and trailing blank lines and repeated blank
// lines.
func commentText(lines []string) string {
	var out []string
	for _, l := range lines {
		if isDirective(l) {
			continue
		}
		l = strings.TrimPrefix(l, " ")
		l = strings.TrimRight(l, " \t")
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// isDirective reports whether c (after "//") is a directive such as
// "go:embed" or "lint:ignore", which CommentGroup.Text leaves out.
func isDirective(c string) bool {
	if strings.HasPrefix(c, "line ") || strings.HasPrefix(c, "extern ") || strings.HasPrefix(c, "export ") {
		return true
	}
	colon := strings.Index(c, ":")
	if colon <= 0 || colon+1 >= len(c) {
		return false
	}
	for i := range colon + 2 {
		if i == colon {
			continue
		}
		b := c[i]
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}
