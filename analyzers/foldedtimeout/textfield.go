package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkTextField reports an error value built as a composite literal of a
// type that implements error, which keeps only the text of an error that
// may carry cancellation (`&RemoteError{Message: err.Error()}`) and holds
// no error value in any field: whatever its Unwrap does, the cancellation
// is gone, and errors.Is(err, context.Canceled) is false for callers. A
// literal that also sets an integer code is a status or wire error (an API
// error body with its status), read by its code: not reported.
func (s *state) checkTextField(cur inspector.Cursor, lit *ast.CompositeLit) {
	t := s.info.TypeOf(lit)
	if t == nil || !implementsError(t) {
		return
	}
	var field, slot string
	var carrier ast.Expr
	switch u := t.Underlying().(type) {
	case *types.Struct:
		var keeps bool
		slot = s.unsetUnwrapField(t, lit, u)
		if field, carrier, keeps = s.textOnly(lit, u, slot != ""); keeps {
			return
		}
	case *types.Slice, *types.Array:
		// GraphQLErrors{{Message: err.Error()}}: a list error whose
		// elements keep only the text.
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				elt = kv.Value
			}
			if u, ok := ast.Unparen(elt).(*ast.UnaryExpr); ok {
				elt = u.X
			}
			el, ok := ast.Unparen(elt).(*ast.CompositeLit)
			if !ok {
				if analysisutil.IsError(s.info.TypeOf(elt)) {
					return
				}
				continue
			}
			if implementsError(s.info.TypeOf(el)) {
				continue // an error itself: judged as its own literal
			}
			st, ok := s.info.TypeOf(el).Underlying().(*types.Struct)
			if !ok {
				continue
			}
			f, c, keeps := s.textOnly(el, st, false)
			if keeps {
				return
			}
			if carrier == nil && c != nil {
				field, carrier = f, c
			}
		}
	default:
		return
	}
	if carrier == nil || !s.propagated(cur) || s.cancelHandledBefore(cur) {
		return
	}
	advice := fmt.Sprintf("keep %s in a field that Unwrap returns", types.ExprString(carrier))
	if slot != "" {
		advice = fmt.Sprintf("set its field %s, which Unwrap returns, to %s", slot, types.ExprString(carrier))
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: lit.Pos(), End: lit.End(),
		Message: fmt.Sprintf("%s keeps only the text of %s in its field %s, so the cancellation %s may carry is lost: errors.Is(err, context.Canceled) is false for callers; %s",
			types.TypeString(t, types.RelativeTo(s.pass.Pkg)), types.ExprString(carrier), field, types.ExprString(carrier), advice),
	})
}

// textOnly returns the field of the struct literal lit that holds the
// text of an error that may carry cancellation, and whether the literal
// keeps an error value or an integer code instead (a status or wire
// error, classified by its code: StatusError{StatusCode: 500,
// ErrorMessage: err.Error()}, whose consumers read the code).
//
// slotLeft says the type's Unwrap returns an error field that the literal
// leaves unset: the type keeps causes, and a code beside the text does not
// excuse dropping this one (StatusError{Status: err.Error(), StatusCode:
// 125} whose Cause is what errors.Is reads).
func (s *state) textOnly(lit *ast.CompositeLit, st *types.Struct, slotLeft bool) (field string, carrier ast.Expr, keeps bool) {
	for i, elt := range lit.Elts {
		name, v := fieldOf(st, i, elt)
		if analysisutil.IsError(s.info.TypeOf(v)) {
			return "", nil, true // an error is kept: the Unwrap rule judges the type
		}
		if b, ok := s.info.TypeOf(v).Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 && !slotLeft {
			return "", nil, true
		}
		if c, errCall := s.carrierOf(v); c != nil && errCall && carrier == nil {
			field, carrier = name, c
		}
	}
	return field, carrier, false
}

// unsetUnwrapField returns the name of the error field that the Unwrap
// method of t (a struct type of this package, on t or *t) returns, when lit
// leaves that field unset; "" otherwise.
func (s *state) unsetUnwrapField(t types.Type, lit *ast.CompositeLit, st *types.Struct) string {
	obj, _, _ := types.LookupFieldOrMethod(t, true, s.pass.Pkg, "Unwrap")
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() != s.pass.Pkg {
		return ""
	}
	d := s.res.DeclOf(fn)
	sig := fn.Type().(*types.Signature)
	if d == nil || d.Body == nil || sig.Recv() == nil || sig.Results().Len() != 1 || !analysisutil.IsError(sig.Results().At(0).Type()) {
		return ""
	}
	var slot *types.Var
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
			if sel, ok := ast.Unparen(r.Results[0]).(*ast.SelectorExpr); ok {
				if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && s.info.Uses[id] == sig.Recv() {
					if v, ok := s.info.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
						slot = v
					}
				}
			}
		}
		return slot == nil
	})
	if slot == nil {
		return ""
	}
	for i, elt := range lit.Elts {
		if name, _ := fieldOf(st, i, elt); name == slot.Name() {
			return ""
		}
	}
	return slot.Name()
}

// implementsError reports whether t or *t implements error.
func implementsError(t types.Type) bool {
	errIface := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	if types.Implements(t, errIface) {
		return true
	}
	if _, isPtr := t.(*types.Pointer); !isPtr {
		return types.Implements(types.NewPointer(t), errIface)
	}
	return false
}

// checkAsSentinel reports errors.As(err, &context.Canceled): with a target
// of type *error As matches any error and assigns it to the package
// variable, so the test holds for every failure and later comparisons with
// context.Canceled compare with the wrong value.
func (s *state) checkAsSentinel(call *ast.CallExpr) {
	if len(call.Args) != 2 {
		return
	}
	u, ok := ast.Unparen(call.Args[1]).(*ast.UnaryExpr)
	if !ok || u.Op.String() != "&" {
		return
	}
	name := ctxflow.ContextSentinel(s.info, u.X)
	if name == "" {
		return
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("errors.As with &context.%s as its target matches every error and overwrites context.%s with it: the test holds for any failure, and later tests for context.%s compare with the wrong value; use errors.Is", name, name, name),
		SuggestedFixes: []analysis.SuggestedFix{{
			Message: "Use errors.Is",
			TextEdits: []analysis.TextEdit{
				{Pos: sel.Sel.Pos(), End: sel.Sel.End(), NewText: []byte("Is")},
				{Pos: u.Pos(), End: u.X.Pos()},
			},
		}},
	})
}
