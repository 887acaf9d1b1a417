package analysisutil

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

var (
	errorType  = types.Universe.Lookup("error").Type()
	errorIface = errorType.Underlying().(*types.Interface)
)

// IsNamed reports whether t (after dereferencing one pointer if ptr) is the
// named type pkgPath.name. Aliases are resolved.
func IsNamed(t types.Type, pkgPath, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Name() == name && obj.Pkg() != nil && obj.Pkg().Path() == pkgPath
}

// IsContext reports whether t is context.Context.
func IsContext(t types.Type) bool { return t != nil && IsNamed(t, "context", "Context") }

// IsHTTPRequest reports whether t is *net/http.Request.
func IsHTTPRequest(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && IsNamed(p.Elem(), "net/http", "Request")
}

// IsError reports whether t is the error interface or a concrete type that
// implements it. Other interfaces that embed error are included too: a value
// of such a type is an error to every caller.
func IsError(t types.Type) bool {
	if t == nil {
		return false
	}
	return types.Implements(t, errorIface)
}

// IsErrorInterface reports whether t is exactly the predeclared error type.
func IsErrorInterface(t types.Type) bool { return t != nil && types.Identical(t, errorType) }

// Callee returns the function or method called by call, or nil for calls of
// function values, builtins and conversions.
func Callee(info *types.Info, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	return fn
}

// IsFunc reports whether fn is the package-level function pkgPath.name.
func IsFunc(fn *types.Func, pkgPath, name string) bool {
	if fn == nil || fn.Name() != name || fn.Pkg() == nil || fn.Pkg().Path() != pkgPath {
		return false
	}
	sig, _ := fn.Type().(*types.Signature)
	return sig != nil && sig.Recv() == nil
}

// IsMethod reports whether fn is the method name of the named type
// pkgPath.typeName (pointer or value receiver), or of an interface type
// pkgPath.typeName.
func IsMethod(fn *types.Func, pkgPath, typeName, name string) bool {
	if fn == nil || fn.Name() != name {
		return false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return false
	}
	rt := sig.Recv().Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	return IsNamed(rt, pkgPath, typeName)
}

// NamedOf returns the generic origin of the named type t is, directly or
// through a pointer, or nil.
func NamedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Origin()
	}
	return nil
}

// RecvTypeName returns the name of the named type whose method fn is
// (through a pointer receiver too), or "" for a function or a method of an
// unnamed type.
func RecvTypeName(fn *types.Func) string {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return ""
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

// IsCallToFunc reports whether call calls the package-level function
// pkgPath.name, matched by type, not by spelling.
func IsCallToFunc(info *types.Info, call *ast.CallExpr, pkgPath string, names ...string) bool {
	fn := Callee(info, call)
	for _, name := range names {
		if IsFunc(fn, pkgPath, name) {
			return true
		}
	}
	return false
}

// ResultIndex returns the index of the last result of sig whose type
// satisfies pred, or -1.
func ResultIndex(sig *types.Signature, pred func(types.Type) bool) int {
	if sig == nil {
		return -1
	}
	for i := sig.Results().Len() - 1; i >= 0; i-- {
		if pred(sig.Results().At(i).Type()) {
			return i
		}
	}
	return -1
}

// ErrorResult returns the index of sig's last result of type error, or -1.
func ErrorResult(sig *types.Signature) int { return ResultIndex(sig, IsErrorInterface) }

// Imports reports whether pkg imports path directly.
func Imports(pkg *types.Package, path string) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == path {
			return true
		}
	}
	return false
}

// Reaches reports whether pkg imports path directly or through its
// dependencies.
func Reaches(pkg *types.Package, path string) bool {
	return reaches(pkg, func(p string) bool { return p == path })
}

// ReachesModule reports whether pkg, or a package it imports directly or
// through its dependencies, is in the module whose path is mod: the build
// already resolves that module, so a fix may import another of its
// packages.
func ReachesModule(pkg *types.Package, mod string) bool {
	in := func(p string) bool { return p == mod || strings.HasPrefix(p, mod+"/") }
	return in(pkg.Path()) || reaches(pkg, in)
}

func reaches(pkg *types.Package, match func(string) bool) bool {
	seen := make(map[*types.Package]bool)
	var visit func(p *types.Package) bool
	visit = func(p *types.Package) bool {
		if seen[p] {
			return false
		}
		seen[p] = true
		for _, imp := range p.Imports() {
			if match(imp.Path()) || visit(imp) {
				return true
			}
		}
		return false
	}
	return visit(pkg)
}

// ObjectOfIdent returns the object an expression names when it is a plain
// identifier (possibly parenthesised), or nil.
func ObjectOfIdent(info *types.Info, e ast.Expr) types.Object {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		return info.ObjectOf(id)
	}
	return nil
}

// VarObject returns the variable or struct field an expression names: v,
// x.f, x.inner.f (the last field), *p, a package-qualified variable; or nil
// for anything else (a call, an index, a method value).
func VarObject(info *types.Info, e ast.Expr) *types.Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.Uses[x].(*types.Var)
		return v
	case *ast.SelectorExpr:
		if s := info.Selections[x]; s != nil {
			if s.Kind() == types.FieldVal {
				v, _ := s.Obj().(*types.Var)
				return v
			}
			return nil
		}
		v, _ := info.Uses[x.Sel].(*types.Var) // a package-qualified variable
		return v
	case *ast.StarExpr:
		return VarObject(info, x.X)
	}
	return nil
}

// ReferencesObject reports whether n mentions obj anywhere.
func ReferencesObject(info *types.Info, n ast.Node, obj types.Object) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == obj {
			found = true
		}
		return true
	})
	return found
}

// TakesContext reports whether sig has a context.Context or *http.Request
// parameter: calls of such a function are bound to the caller's context.
func TakesContext(sig *types.Signature) bool {
	for i := range sig.Params().Len() {
		t := sig.Params().At(i).Type()
		if IsContext(t) || IsHTTPRequest(t) {
			return true
		}
	}
	return false
}

// HasMethod reports whether a value of type t has a method named name
// (for a non-interface type, one of t or *t: the value may be addressable).
// The error interface itself counts as having none beyond Error, so that
// "does this error value define Is or Unwrap" is asked of concrete types.
func HasMethod(t types.Type, name string) bool {
	if _, ok := t.Underlying().(*types.Interface); ok && !types.Identical(t, errorType) {
		obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
		return obj != nil
	}
	if _, isPtr := t.(*types.Pointer); !isPtr {
		t = types.NewPointer(t)
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	_, ok := obj.(*types.Func)
	return ok
}

// PackageVar returns the package-level variable that e (an identifier or
// a qualified identifier) names, or nil.
func PackageVar(info *types.Info, e ast.Expr) *types.Var {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return nil
	}
	v, ok := info.ObjectOf(id).(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	return v
}

// Received returns the channel operand of a statement that is a receive,
// `<-ch`, `v := <-ch`, `v, ok = <-ch` or `var v = <-ch` (a select case's
// communication, or a bare receive), or nil.
func Received(s ast.Node) ast.Expr {
	var x ast.Expr
	switch s := s.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			x = s.Rhs[0]
		}
	case *ast.ValueSpec:
		if len(s.Values) == 1 {
			x = s.Values[0]
		}
	}
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// SamePath reports whether a and b denote the same access path: the same
// variable at the root, through the same fields and pointer indirections,
// with no call or index in between (s.sem and s.sem, not s.get().sem).
func SamePath(info *types.Info, a, b ast.Expr) bool {
	a, b = ast.Unparen(a), ast.Unparen(b)
	switch a := a.(type) {
	case *ast.Ident:
		b, ok := b.(*ast.Ident)
		if !ok {
			return false
		}
		o := info.ObjectOf(a)
		return o != nil && o == info.ObjectOf(b)
	case *ast.SelectorExpr:
		b, ok := b.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		o := info.ObjectOf(a.Sel)
		return o != nil && o == info.ObjectOf(b.Sel) && SamePath(info, a.X, b.X)
	case *ast.StarExpr:
		b, ok := b.(*ast.StarExpr)
		return ok && SamePath(info, a.X, b.X)
	}
	return false
}

// IsBool reports whether t's underlying type is bool.
func IsBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Bool
}

// IsBuiltin reports whether call calls the predeclared function name
// (close, make, append, new...), not a function that shadows it.
func IsBuiltin(info *types.Info, call *ast.CallExpr, name string) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}
