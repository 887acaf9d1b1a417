// Package checkdoc renders a check's documentation (its analyzer's Doc,
// written in Go doc comment syntax in the check's doc.go) as Markdown, for
// docs/<check>.md and SARIF rule help.
package checkdoc

import (
	"go/doc/comment"
	"strings"
)

// Markdown renders doc, Go doc comment text, as Markdown: headings at
// level headingLevel, code blocks fenced as Go, `code` spans kept.
func Markdown(doc string, headingLevel int) string {
	var p comment.Parser
	pr := comment.Printer{HeadingLevel: headingLevel}
	return polish(string(pr.Markdown(p.Parse(strings.TrimSpace(doc) + "\n"))))
}

// Body returns an analyzer Doc without its first "name: summary" line.
func Body(doc string) string {
	_, body, _ := strings.Cut(doc, "\n")
	return strings.TrimSpace(body)
}

// polish turns the Markdown printer's indented code blocks into fenced Go
// blocks and undoes its escaping inside `code` spans, which doc comments
// write with backquotes.
func polish(md string) string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "\t") {
			out = append(out, "```go")
			for ; i < len(lines) && (strings.HasPrefix(lines[i], "\t") || lines[i] == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t")); i++ {
				out = append(out, strings.TrimPrefix(lines[i], "\t"))
			}
			out = append(out, "```")
			i--
			continue
		}
		out = append(out, unescapeCode(lines[i]))
	}
	return strings.Join(out, "\n")
}

// unescapeCode removes the backslash escapes inside `...` spans of line.
func unescapeCode(line string) string {
	line = strings.ReplaceAll(line, "\\`", "`")
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		if i == len(parts)-1 {
			break // unbalanced: leave it
		}
		var b strings.Builder
		for j := 0; j < len(parts[i]); j++ {
			if parts[i][j] == '\\' && j+1 < len(parts[i]) && strings.ContainsRune("\\`*_{}[]()#+-.!<>|~", rune(parts[i][j+1])) {
				j++
			}
			b.WriteByte(parts[i][j])
		}
		parts[i] = b.String()
	}
	return strings.Join(parts, "`")
}
