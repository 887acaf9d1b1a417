package goroutines

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"
)

// boundLit returns the function literal that the local variable id names
// in `go id()` at cursor c, when the variable is defined from that literal
// (`load := func() {...}` or `var load = func() {...}`) and its only uses
// are go statements that call it (this one, and maybe more outside loops:
// a hedged request starts the same literal twice): it is never reassigned, called
// directly or passed on, so the literal is the body of each goroutine
// started from it and runs only there.
func (a *analysis) boundLit(c inspector.Cursor, id *ast.Ident) *ast.FuncLit {
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pkg() != a.pass.Pkg || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	// The outermost function declaration around the go statement holds the
	// variable's definition and all its uses.
	var top inspector.Cursor
	for e := range c.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		top = e
	}
	if !top.Valid() {
		return nil
	}
	var lit *ast.FuncLit
	uses, goUses := 0, 0
	inLoop := false
	for n := range top.Preorder((*ast.Ident)(nil), (*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)) {
		switch id := n.Node().(type) {
		case *ast.Ident:
			if a.info.Uses[id] == v {
				uses++
				// go run(): a start of the literal (a hedged request
				// starts the same literal twice).
				if call, ok := n.Parent().Node().(*ast.CallExpr); ok && ast.Unparen(call.Fun) == ast.Expr(id) {
					if _, ok := n.Parent().Parent().Node().(*ast.GoStmt); ok {
						goUses++
						for e := range n.Enclosing((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
							switch e.Node().(type) {
							case *ast.ForStmt, *ast.RangeStmt:
								inLoop = true
							}
							break
						}
					}
				}
			}
		}
		switch n := n.Node().(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				continue
			}
			for i, l := range n.Lhs {
				if lid, ok := l.(*ast.Ident); ok && a.info.Defs[lid] == v {
					lit, _ = ast.Unparen(n.Rhs[i]).(*ast.FuncLit)
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) != len(n.Values) {
				continue
			}
			for i, name := range n.Names {
				if a.info.Defs[name] == v {
					lit, _ = ast.Unparen(n.Values[i]).(*ast.FuncLit)
				}
			}
		}
	}
	if uses != goUses || uses == 0 || lit == nil || lit.Pos() > id.Pos() {
		return nil
	}
	if uses > 1 && inLoop {
		// Started from several places, one of them in a loop (a health
		// check the monitor loop starts now and then): how many run is
		// not known, and the starts are not counted as one body's.
		return nil
	}
	return lit
}

// storedCancels records in o.stored the contexts whose cancel function
// (a key of cancelOf) it stores in a map element or in a field of
// something the owner does not declare itself: `jobs[id] = cancel`,
// `s.cancel = cancel`, `s.jobs[id] = &job{stop: cancel}`, also through a
// local that holds it (`j := &job{stop: cancel}; s.jobs[id] = j`).
func (a *analysis) storedCancels(o *owner, as *ast.AssignStmt, cancelOf map[types.Object]types.Object) {
	if len(cancelOf) == 0 || len(as.Lhs) != len(as.Rhs) {
		return
	}
	for i, l := range as.Lhs {
		var ctx types.Object
		ast.Inspect(as.Rhs[i], func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && ctx == nil {
				ctx = cancelOf[a.info.Uses[id]]
			}
			return ctx == nil
		})
		if ctx == nil {
			continue
		}
		if a.outlivesOwner(o, l) {
			o.stored[ctx] = true
		} else if id, ok := l.(*ast.Ident); ok {
			// j := &job{stop: cancel}: j carries the cancel on, to a
			// registry perhaps (s.jobs[id] = j).
			if v := a.info.ObjectOf(id); v != nil && cancelOf[v] == nil {
				cancelOf[v] = ctx
			}
		}
	}
}

// outlivesOwner reports whether l is a map element or a field whose base
// variable is not a local of o: a parameter, the receiver, a captured or a
// package variable.
func (a *analysis) outlivesOwner(o *owner, l ast.Expr) bool {
	sawElem := false
	e := l
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			if _, isMap := a.info.TypeOf(x.X).Underlying().(*types.Map); !isMap {
				return false
			}
			sawElem, e = true, x.X
		case *ast.SelectorExpr:
			sel, ok := a.info.Selections[x]
			if !ok || sel.Kind() != types.FieldVal {
				return false
			}
			sawElem, e = true, x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.Ident:
			v, ok := a.info.Uses[x].(*types.Var)
			if !ok || !sawElem {
				return false
			}
			return !a.declaredIn(v, o.fn) || isParamOf(v, o.fn)
		default:
			return false
		}
	}
}
