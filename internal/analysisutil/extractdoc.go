package analysisutil

import (
	"fmt"
	"go/parser"
	"go/token"
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", content, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return "", fmt.Errorf("not a Go source file: %v", err)
	}
	if f.Doc == nil {
		return "", fmt.Errorf("no package doc comment in Go source file")
	}
	text := f.Doc.Text()
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
