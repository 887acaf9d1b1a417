package foldedtimeout

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// carrierText tracks the text of errors that may carry cancellation into
// local variables: strings, slices of strings and strings.Builders that are
// given err.Error(), a formatting of err, or a value built from another
// such variable:
//
//	msgs = append(msgs, s.Name+": "+err.Error())
//	...
//	return fmt.Errorf("%d steps failed: %s", len(msgs), strings.Join(msgs, "; "))
//
// The error built at the end holds only the text: errors.Is(err,
// context.Canceled) is false for the caller although a step was canceled.
// The analysis is flow-insensitive (a variable that is given carrier text
// anywhere in the package holds it everywhere), which is sound for the
// question asked at the sink: whether a new error may be made of that text.
type carrierText struct {
	s    *state
	vars map[*types.Var]ast.Expr // variable -> the carrier whose text it holds
}

// computeCarrierText fills the variables of the package's functions.
func (s *state) computeCarrierText(ins *inspector.Inspector) *carrierText {
	ct := &carrierText{s: s, vars: make(map[*types.Var]ast.Expr)}
	var sites []ast.Node
	for c := range ins.Root().Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.CallExpr)(nil)) {
		switch n := c.Node().(type) {
		case *ast.CallExpr:
			if ct.writerCall(n) != nil {
				sites = append(sites, n)
			}
		default:
			sites = append(sites, n)
		}
	}
	// Each round can only add variables: a fixed point over chains of
	// assignments in any order.
	for changed := true; changed; {
		changed = false
		for _, n := range sites {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					continue
				}
				for i, l := range n.Lhs {
					changed = ct.assign(l, n.Rhs[i]) || changed
				}
			case *ast.ValueSpec:
				if len(n.Names) != len(n.Values) {
					continue
				}
				for i, id := range n.Names {
					changed = ct.assign(id, n.Values[i]) || changed
				}
			case *ast.CallExpr:
				w := ct.writerCall(n)
				for _, a := range n.Args {
					if c := ct.textOrCarrier(a); c != nil {
						changed = ct.mark(w, c) || changed
						break
					}
				}
			}
		}
	}
	return ct
}

// assign records that l = rhs gives l carrier text.
func (ct *carrierText) assign(l, rhs ast.Expr) bool {
	if c := ct.of(rhs); c != nil {
		return ct.mark(l, c)
	}
	return false
}

// mark records that the local variable named by e holds the text of c.
func (ct *carrierText) mark(e ast.Expr, c ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := ct.s.info.ObjectOf(id).(*types.Var)
	if !ok || v.Parent() == nil || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || !textType(v.Type()) {
		return false
	}
	if ct.vars[v] != nil {
		return false
	}
	ct.vars[v] = c
	return true
}

// writerCall returns the builder that a call appends text to: b in
// b.WriteString(x) and fmt.Fprintf(&b, ...) for a strings.Builder or
// bytes.Buffer b.
func (ct *carrierText) writerCall(call *ast.CallExpr) ast.Expr {
	info := ct.s.info
	fn := analysisutil.Callee(info, call)
	if fn == nil {
		return nil
	}
	if analysisutil.IsFunc(fn, "fmt", "Fprintf") || analysisutil.IsFunc(fn, "fmt", "Fprint") || analysisutil.IsFunc(fn, "fmt", "Fprintln") {
		if len(call.Args) > 0 {
			if u, ok := ast.Unparen(call.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND && isBuilder(info.TypeOf(u.X)) {
				return u.X
			}
		}
		return nil
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isBuilder(info.TypeOf(sel.X)) {
		switch fn.Name() {
		case "WriteString", "Write":
			return sel.X
		}
	}
	return nil
}

// of returns the carrier whose text e holds, or nil: err.Error(), a
// formatting of err (fmt.Sprint*, with any verb: the result is text), a
// concatenation, strings.Join or an element of a variable holding it,
// and b.String() of a builder that was given it.
func (ct *carrierText) of(e ast.Expr) ast.Expr {
	info := ct.s.info
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := info.ObjectOf(e).(*types.Var); ok {
			return ct.vars[v]
		}
	case *ast.IndexExpr:
		return ct.of(e.X)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			if c := ct.of(e.X); c != nil {
				return c
			}
			return ct.of(e.Y)
		}
	case *ast.CallExpr:
		if c, errCall := ct.s.carrierOf(e); c != nil && errCall {
			return c // err.Error()
		}
		fn := analysisutil.Callee(info, e)
		switch {
		case isAppend(info, e):
			for _, a := range e.Args {
				if c := ct.of(a); c != nil {
					return c
				}
			}
		case fn == nil:
		case analysisutil.IsFunc(fn, "fmt", "Sprintf"), analysisutil.IsFunc(fn, "fmt", "Sprint"), analysisutil.IsFunc(fn, "fmt", "Sprintln"):
			for _, a := range e.Args {
				if c := ct.textOrCarrier(a); c != nil {
					return c
				}
			}
		case analysisutil.IsFunc(fn, "strings", "Join"):
			if len(e.Args) > 0 {
				return ct.of(e.Args[0])
			}
		case fn.Name() == "String" && len(e.Args) == 0:
			if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && isBuilder(info.TypeOf(sel.X)) {
				return ct.of(sel.X)
			}
		}
	}
	return nil
}

// textOrCarrier returns e itself when it is an error that may carry
// cancellation (formatted, it becomes its text), else the carrier whose
// text e holds, or nil.
func (ct *carrierText) textOrCarrier(e ast.Expr) ast.Expr {
	if analysisutil.IsError(ct.s.info.TypeOf(e)) {
		if ct.s.res.MayCarryCancel(e) {
			return e
		}
		return nil
	}
	return ct.of(e)
}

// textType reports whether t holds text: a string, a slice of strings, or
// a strings.Builder or bytes.Buffer.
func textType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Info()&types.IsString != 0
	}
	return isBuilder(t)
}

// isBuilder reports whether t is strings.Builder or bytes.Buffer (or a
// pointer to one).
func isBuilder(t types.Type) bool {
	if t == nil {
		return false
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return analysisutil.IsNamed(t, "strings", "Builder") || analysisutil.IsNamed(t, "bytes", "Buffer")
}

// isAppend reports whether call is the builtin append.
func isAppend(info *types.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "append"
}
