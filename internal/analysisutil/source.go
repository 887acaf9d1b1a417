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

// DeleteLines returns the edit that removes stmt together with the line it
// stands on, when stmt has its lines to itself (only blanks before it on
// its first line and after it on its last); ok is false otherwise, or when
// the file cannot be read.
func DeleteLines(pass *analysis.Pass, stmt ast.Node) (analysis.TextEdit, bool) {
	src := ReadSource(pass, stmt.Pos())
	if src == nil {
		return analysis.TextEdit{}, false
	}
	tf := pass.Fset.File(stmt.Pos())
	start, end := tf.Offset(stmt.Pos()), tf.Offset(stmt.End())
	if end > len(src) || start > end {
		return analysis.TextEdit{}, false
	}
	ls := start
	for ls > 0 && (src[ls-1] == ' ' || src[ls-1] == '\t') {
		ls--
	}
	if ls > 0 && src[ls-1] != '\n' {
		return analysis.TextEdit{}, false
	}
	le := end
	for le < len(src) && (src[le] == ' ' || src[le] == '\t' || src[le] == '\r') {
		le++
	}
	switch {
	case le == len(src):
	case src[le] == '\n':
		le++
	default:
		return analysis.TextEdit{}, false
	}
	return analysis.TextEdit{Pos: tf.Pos(ls), End: tf.Pos(le)}, true
}

// StmtList returns the statement list n holds directly: a block's, a
// case clause's or a select clause's body; nil for other nodes.
func StmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}
