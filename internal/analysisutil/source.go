package analysisutil

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/analysis"
)

// ReadSource returns the content of the file holding pos, through
// pass.ReadFile so that drivers with overlays see what they analyze. It
// returns nil when the driver offers no ReadFile or the file cannot be read;
// callers then offer no fix rather than guess.
func ReadSource(pass *analysis.Pass, pos token.Pos) []byte {
	tf := pass.Fset.File(pos)
	if tf == nil || pass.ReadFile == nil {
		return nil
	}
	src, err := pass.ReadFile(tf.Name())
	if err != nil {
		return nil
	}
	return src
}

// Source returns the text of n as written, or "" when the file cannot be
// read.
func Source(pass *analysis.Pass, n ast.Node) string {
	src := ReadSource(pass, n.Pos())
	if src == nil {
		return ""
	}
	tf := pass.Fset.File(n.Pos())
	start, end := tf.Offset(n.Pos()), tf.Offset(n.End())
	if end > len(src) || start > end {
		return ""
	}
	return string(src[start:end])
}

// IndentAt returns the leading whitespace of the line holding pos, or ""
// when the file cannot be read.
func IndentAt(pass *analysis.Pass, pos token.Pos) string {
	src := ReadSource(pass, pos)
	if src == nil {
		return ""
	}
	return Indent(pass.Fset, src, pos)
}
