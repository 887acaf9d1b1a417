package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"
	"go/version"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// opaqueType is an error type that stores errors in fields but has no
// Unwrap, Is or As method: whatever it stores is invisible to errors.Is
// and errors.As. It is computed from the type itself, in this package or
// an imported one (export data has the fields and methods), so it needs
// no fact.
type opaqueType struct {
	// Fields are the names of the error-typed fields, in order.
	Fields []string
}

// opaqueFields returns the error-typed fields of an error type without
// Unwrap, Is or As methods, or nil.
func opaqueFields(tn *types.TypeName) []string {
	named, ok := tn.Type().(*types.Named)
	if !ok {
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	ptr := types.NewPointer(named)
	if !analysisutil.IsError(ptr) {
		return nil
	}
	for _, m := range []string{"Unwrap", "Is", "As"} {
		if obj, _, _ := types.LookupFieldOrMethod(ptr, true, tn.Pkg(), m); obj != nil {
			return nil
		}
	}
	var fields []string
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Embedded() && analysisutil.IsErrorInterface(f.Type()) {
			fields = append(fields, f.Name())
		}
	}
	return fields
}

// opaqueOf returns the named type of a composite literal when it is an
// opaque error type, with its error fields.
func (s *state) opaqueOf(t types.Type) (*types.TypeName, *opaqueType) {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil, nil
	}
	tn := named.Origin().Obj()
	if o, ok := s.opaque[tn]; ok {
		return tn, o
	}
	var o *opaqueType
	if f := opaqueFields(tn); f != nil {
		o = &opaqueType{Fields: f}
	}
	s.opaque[tn] = o
	return tn, o
}

// checkCompositeLit reports &OpError{Err: err} where err may carry
// cancellation and OpError has no Unwrap method. A type of this package is
// reported once, at its first such use, with a fix that adds Unwrap.
func (s *state) checkCompositeLit(cur inspector.Cursor, lit *ast.CompositeLit) {
	s.checkTextField(cur, lit)
	tn, opq := s.opaqueOf(s.info.TypeOf(lit))
	if opq == nil || s.reported[tn] {
		return
	}
	st, ok := tn.Type().Underlying().(*types.Struct)
	if !ok {
		return
	}
	var field string
	var value ast.Expr
	for i, elt := range lit.Elts {
		name, v := fieldOf(st, i, elt)
		if contains(opq.Fields, name) && s.res.MayCarryCancel(v) {
			field, value = name, v
			break
		}
	}
	if value == nil || !s.propagated(cur) || s.cancelHandledBefore(cur) {
		return
	}
	d := analysis.Diagnostic{
		Pos: lit.Pos(),
		End: lit.End(),
		Message: fmt.Sprintf("%s stores %s, which may carry cancellation, in field %s but has no Unwrap method, so errors.Is(err, context.Canceled) is false for callers",
			tn.Name(), types.ExprString(value), field),
	}
	if tn.Pkg() == s.pass.Pkg {
		s.reported[tn] = true
		d.Related = []analysis.RelatedInformation{{Pos: tn.Pos(), End: tn.Pos(), Message: tn.Name() + " is declared here"}}
		if len(opq.Fields) == 1 {
			d.SuggestedFixes = s.unwrapFix(tn, opq.Fields[0])
		}
	}
	s.rep.Report(d)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// errorMethodDecl returns the declaration of the Error method of tn, a
// type of this package that is not generic, with its file; nil when there
// is none to add a method beside.
func (s *state) errorMethodDecl(tn *types.TypeName) (*ast.FuncDecl, *ast.File) {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, tn.Pkg(), "Error")
	m, ok := obj.(*types.Func)
	if !ok || m.Pkg() != s.pass.Pkg {
		return nil, nil
	}
	if named, ok := tn.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
		return nil, nil
	}
	file := analysisutil.FileOf(s.pass, m.Pos())
	if file == nil {
		return nil, nil
	}
	for _, decl := range file.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Name.Pos() == m.Pos() && fd.Recv != nil && len(fd.Recv.List) == 1 {
			return fd, file
		}
	}
	return nil, nil
}

// unwrapFix adds `func (e *T) Unwrap() error { return e.Field }` after the
// type's Error method, with the same receiver.
func (s *state) unwrapFix(tn *types.TypeName, field string) []analysis.SuggestedFix {
	fd, _ := s.errorMethodDecl(tn)
	if fd == nil {
		return nil
	}
	recv := fd.Recv.List[0]
	if len(recv.Names) != 1 || recv.Names[0].Name == "_" {
		return nil
	}
	rname := recv.Names[0].Name
	rtype := s.source(recv.Type)
	if rtype == "" {
		return nil
	}
	text := fmt.Sprintf("\n\n// Unwrap returns the error in %s, so that errors.Is and errors.As see through %s.\nfunc (%s %s) Unwrap() error { return %s.%s }",
		field, tn.Name(), rname, rtype, rname, field)
	return []analysis.SuggestedFix{{
		Message:   "Add an Unwrap method to " + tn.Name(),
		TextEdits: []analysis.TextEdit{{Pos: fd.End(), End: fd.End(), NewText: []byte(text)}},
	}}
}

// fieldOf returns the field name and value of element i of a composite
// literal of struct type st (keyed or positional).
func fieldOf(st *types.Struct, i int, elt ast.Expr) (string, ast.Expr) {
	if kv, ok := elt.(*ast.KeyValueExpr); ok {
		if id, ok := kv.Key.(*ast.Ident); ok {
			return id.Name, kv.Value
		}
		return "", elt
	}
	if i < st.NumFields() {
		return st.Field(i).Name(), elt
	}
	return "", elt
}

// opaqueSlice reports whether t is a named slice of errors that is an
// error itself but has no Unwrap, Is or As method (a hand-made multierror):
// the errors it collects are invisible to errors.Is and errors.As.
func opaqueSlice(t types.Type) (*types.TypeName, bool) {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil, false
	}
	sl, ok := named.Underlying().(*types.Slice)
	if !ok || !analysisutil.IsErrorInterface(sl.Elem()) || !analysisutil.IsError(types.NewPointer(named)) {
		return nil, false
	}
	tn := named.Origin().Obj()
	for _, m := range []string{"Unwrap", "Is", "As"} {
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), true, tn.Pkg(), m); obj != nil {
			return nil, false
		}
	}
	return tn, true
}

// checkOpaqueAppend reports `errs = append(errs, err)` where errs is a
// local of an opaque slice type (opaqueSlice) that the function returns
// as its error, and err may carry cancellation: the caller's
// errors.Is(err, context.Canceled) is false although one of the collected
// errors is the cancellation. A type of this package is reported once,
// with a fix that adds `Unwrap() []error` (Go 1.20's multiple wrapping).
func (s *state) checkOpaqueAppend(cur inspector.Cursor, call *ast.CallExpr) {
	if len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return
	}
	tn, ok := opaqueSlice(s.info.TypeOf(call.Args[0]))
	if !ok || s.reported[tn] {
		return
	}
	var value ast.Expr
	for _, a := range call.Args[1:] {
		if s.res.MayCarryCancel(a) {
			value = a
			break
		}
	}
	if value == nil || s.cancelHandledBefore(cur) {
		return
	}
	v := analysisutil.VarObject(s.info, call.Args[0])
	if v == nil || !s.returnedAsError(cur, v) {
		return
	}
	d := analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("%s collects %s, which may carry cancellation, but has no Unwrap method, so errors.Is(err, context.Canceled) is false for callers of the %s returned",
			tn.Name(), types.ExprString(value), types.ExprString(call.Args[0])),
	}
	if tn.Pkg() == s.pass.Pkg {
		s.reported[tn] = true
		d.Related = []analysis.RelatedInformation{{Pos: tn.Pos(), End: tn.Pos(), Message: tn.Name() + " is declared here"}}
		d.SuggestedFixes = s.unwrapSliceFix(tn)
	}
	s.rep.Report(d)
}

// returnedAsError reports whether the function around cur returns v (not
// in a literal) in an error result.
func (s *state) returnedAsError(cur inspector.Cursor, v *types.Var) bool {
	var body *ast.BlockStmt
	for c := cur; c.Valid(); c = c.Parent() {
		switch n := c.Node().(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		default:
			continue
		}
		break
	}
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if id, ok := ast.Unparen(r).(*ast.Ident); ok && s.info.Uses[id] == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// unwrapSliceFix adds `func (m T) Unwrap() []error { return m }` after the
// type's Error method, where the file has Go 1.20 or later.
func (s *state) unwrapSliceFix(tn *types.TypeName) []analysis.SuggestedFix {
	fd, file := s.errorMethodDecl(tn)
	if fd == nil {
		return nil
	}
	if v := s.info.FileVersions[file]; v != "" && version.Compare(v, "go1.20") < 0 {
		return nil
	}
	text := fmt.Sprintf("\n\n// Unwrap returns the errors in %s, so that errors.Is and errors.As see through it.\nfunc (m %s) Unwrap() []error { return m }",
		tn.Name(), tn.Name())
	return []analysis.SuggestedFix{{
		Message:   "Add an Unwrap method to " + tn.Name(),
		TextEdits: []analysis.TextEdit{{Pos: fd.End(), End: fd.End(), NewText: []byte(text)}},
	}}
}
