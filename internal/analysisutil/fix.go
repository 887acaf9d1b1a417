package analysisutil

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// FileOf returns the file of pass that contains pos, or nil.
func FileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}

// ImportName returns the name by which file refers to the package path, or
// "" when file does not import it (or imports it blank or dot).
func ImportName(file *ast.File, path string) string {
	for _, spec := range file.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil || p != path {
			continue
		}
		if spec.Name != nil {
			if spec.Name.Name == "_" || spec.Name.Name == "." {
				continue
			}
			return spec.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// AddImport returns the name under which file can refer to path and, when
// the file does not import it yet, the edit that adds the import. It never
// mutates the AST. pos is where the name will be used: if a local
// declaration there shadows the package name, the import gets a fresh name.
func AddImport(info *types.Info, file *ast.File, pos token.Pos, path string) (string, []analysis.TextEdit) {
	if name := ImportName(file, path); name != "" {
		return name, nil
	}
	base := path[strings.LastIndex(path, "/")+1:]
	name := FreeName(info, file, pos, base, false)
	spec := strconv.Quote(path)
	if name != base {
		spec = name + " " + spec
	}
	// Add to the first import declaration when there is one; gofmt (which
	// analysistest and the drivers run) sorts it in.
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Lparen.IsValid() {
			return name, []analysis.TextEdit{{Pos: gd.Lparen + 1, End: gd.Lparen + 1, NewText: []byte("\n\t" + spec)}}
		}
		// import "x"  ->  import ("x"; spec)
		return name, []analysis.TextEdit{
			{Pos: gd.TokPos + token.Pos(len("import")), End: gd.Specs[0].Pos(), NewText: []byte(" (\n\t")},
			{Pos: gd.Specs[0].End(), End: gd.Specs[0].End(), NewText: []byte("\n\t" + spec + "\n)")},
		}
	}
	return name, []analysis.TextEdit{{Pos: file.Name.End(), End: file.Name.End(), NewText: []byte("\n\nimport " + spec)}}
}

// FreeName returns base, or base2, base3, ..., the first name that no
// declaration in scope at pos in file binds. With declaring, the name is
// for a new variable declared at pos, so a name declared anywhere in the
// innermost block (later too: a later := would clash) is not free either.
func FreeName(info *types.Info, file *ast.File, pos token.Pos, base string, declaring bool) string {
	scope := info.Scopes[file]
	if scope == nil {
		return base
	}
	if inner := scope.Innermost(pos); inner != nil {
		scope = inner
	}
	name := base
	for i := 2; ; i++ {
		if _, obj := scope.LookupParent(name, pos); obj == nil && (!declaring || scope.Lookup(name) == nil) {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

// Qualifier returns a types.Qualifier that spells packages as file imports
// them, for types printed into file.
func Qualifier(file *ast.File, pkg *types.Package) types.Qualifier {
	return func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		if name := ImportName(file, p.Path()); name != "" {
			return name
		}
		return p.Name()
	}
}

// ZeroValue returns Go source for the zero value of t as seen from file, and
// whether it could be spelled without new imports.
func ZeroValue(file *ast.File, pkg *types.Package, t types.Type) (string, bool) {
	qf := Qualifier(file, pkg)
	ok := true
	// Every package named in t must be imported by file already.
	var check func(types.Type)
	seen := map[types.Type]bool{}
	check = func(t types.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if p := t.Obj().Pkg(); p != nil && p != pkg && ImportName(file, p.Path()) == "" {
				ok = false
			}
			if args := t.TypeArgs(); args != nil {
				for i := range args.Len() {
					check(args.At(i))
				}
			}
		case *types.Pointer:
			check(t.Elem())
		case *types.Slice:
			check(t.Elem())
		case *types.Array:
			check(t.Elem())
		case *types.Map:
			check(t.Key())
			check(t.Elem())
		case *types.Chan:
			check(t.Elem())
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return "false", true
		case u.Info()&types.IsString != 0:
			return `""`, true
		case u.Info()&types.IsNumeric != 0:
			return "0", true
		case u.Kind() == types.UnsafePointer:
			return "nil", true
		}
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Signature, *types.Interface:
		if _, isParam := t.(*types.TypeParam); isParam {
			check(t)
			return "*new(" + types.TypeString(t, qf) + ")", ok
		}
		return "nil", true
	case *types.Struct, *types.Array:
		check(t)
		return types.TypeString(t, qf) + "{}", ok
	}
	check(t)
	return "*new(" + types.TypeString(t, qf) + ")", ok
}

// ReturnWith returns the text of a return statement for the function with
// signature sig in file that returns errExpr as its last error result and
// zero values elsewhere. ok is false when a zero value cannot be spelled
// without adding imports, or sig has no error result.
func ReturnWith(file *ast.File, pkg *types.Package, sig *types.Signature, errExpr string) (string, bool) {
	idx := ErrorResult(sig)
	if idx < 0 {
		return "", false
	}
	parts := make([]string, sig.Results().Len())
	for i := range parts {
		if i == idx {
			parts[i] = errExpr
			continue
		}
		z, ok := ZeroValue(file, pkg, sig.Results().At(i).Type())
		if !ok {
			return "", false
		}
		parts[i] = z
	}
	return "return " + strings.Join(parts, ", "), true
}

// Indent returns the leading whitespace of the line holding pos.
func Indent(fset *token.FileSet, src []byte, pos token.Pos) string {
	tf := fset.File(pos)
	if tf == nil {
		return ""
	}
	off := tf.Offset(tf.LineStart(tf.Line(pos)))
	end := off
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	if end > len(src) {
		return ""
	}
	return string(src[off:end])
}
