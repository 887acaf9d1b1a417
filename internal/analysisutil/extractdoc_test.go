package analysisutil

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageComment checks the parser-free package comment extraction
// against go/parser on every doc.go of the repository and on edge cases.
func TestPackageComment(t *testing.T) {
	files, _ := filepath.Glob("../../*/*/doc.go")
	more, _ := filepath.Glob("../../*/doc.go")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found only %d doc.go files", len(files))
	}
	var srcs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	srcs = append(srcs,
		"// Copyright line\n\n// Package p does things.\n//\n//\n// More.  \n//go:build linux\n//lint:ignore X y\npackage p\n",
		"//Tight.\n//  Indented.\n// \n// Last.\npackage p // trailing\n",
		"// One.\r\n// Two.\r\npackage p\r\n",
	)
	for _, src := range srcs {
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		want := f.Doc.Text()
		got, err := packageComment(src)
		if err != nil {
			t.Errorf("packageComment: %v\n%s", err, firstLine(src))
			continue
		}
		if got != want {
			t.Errorf("packageComment of %s:\ngot  %q\nwant %q", firstLine(src), got, want)
		}
	}
	for _, bad := range []string{"", "package p\n", "// Detached.\n\npackage p\n", "/* C */\npackage p\n", "// C\nvar x int\n"} {
		if _, err := packageComment(bad); err == nil {
			t.Errorf("packageComment(%q): no error", bad)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
