package driver

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"strconv"

	"golang.org/x/tools/go/ast/astutil"
)

// dropUnusedImports removes from fixed the imports that the fixes left
// without a use: imports of before that some selector of the file used
// and none uses after (a fix that turns strings.Contains(err.Error(), ...)
// into errors.Is can remove a file's last use of strings, and the file
// would not build). Imports unused before the fixes, blank, dot and cgo
// imports are left alone. Like go vet -fix and go fix, which remove such
// imports too, it works on syntax: a use is a selector x.Sel whose x is
// the import's name and is not declared locally in the file. It returns
// fixed unchanged when either version does not parse.
func dropUnusedImports(before, fixed []byte) []byte {
	fset := token.NewFileSet()
	old, err := parser.ParseFile(fset, "before.go", before, parser.SkipObjectResolution)
	if err != nil {
		return fixed
	}
	fset = token.NewFileSet()
	file, err := parser.ParseFile(fset, "fixed.go", fixed, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return fixed
	}
	usedBefore := selectorRoots(old)
	usedAfter := selectorRoots(file)
	var drop []*ast.ImportSpec
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || p == "C" {
			continue
		}
		name := importName(spec, p)
		if name == "_" || name == "." || name == "" {
			continue
		}
		if usedBefore[name] && !usedAfter[name] {
			drop = append(drop, spec)
		}
	}
	if len(drop) == 0 {
		return fixed
	}
	for _, spec := range drop {
		p, _ := strconv.Unquote(spec.Path.Value)
		explicit := ""
		if spec.Name != nil {
			explicit = spec.Name.Name
		}
		astutil.DeleteNamedImport(fset, file, explicit, p)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return fixed
	}
	return buf.Bytes()
}

// importName is the name an import declares: its explicit name, else the
// last element of its path without a major-version suffix (v2) or a go-
// or .go affix, the usual package name for that path.
func importName(spec *ast.ImportSpec, p string) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	base := path.Base(p)
	if len(base) >= 2 && base[0] == 'v' && isDigits(base[1:]) {
		base = path.Base(path.Dir(p))
	}
	return base
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// selectorRoots returns the identifiers used as x in a selector x.Sel
// outside the import declarations.
func selectorRoots(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					out[id.Name] = true
				}
			}
			return true
		})
	}
	return out
}
