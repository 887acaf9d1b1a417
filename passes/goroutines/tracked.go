package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// Untracked says that a goroutine started by a method of a type escapes
// the WaitGroup field that the type's other goroutines are counted in and
// that its shutdown waits on:
//
//	func (s *Server) Start() {
//		s.wg.Add(1)
//		go s.accept()
//		go s.sweep() // not counted in s.wg: Close returns while it runs
//	}
//	func (s *Server) Close() { close(s.quit); s.wg.Wait() }
type Untracked struct {
	Field *types.Var // the WaitGroup field
	Wait  token.Pos  // a Wait on it
	Add   token.Pos  // an Add (or Go) on it
}

// trackedField is what the package does with one WaitGroup field.
type trackedField struct {
	wait, add token.Pos
}

// trackedFields returns, once per package, the WaitGroup fields of struct
// types that the package both adds to (Add, Go) and waits on, through a
// selector x.f. An Add that its own function (not a literal in it) matches
// with a deferred Done on the same field counts the running call rather
// than a goroutine (h.streams.Add(1); defer h.streams.Done(): the
// WaitGroup counts open streams, and a shutdown that waits on it waits for
// handlers), so it does not count.
func (a *analysis) trackedFields() map[*types.Var]trackedField {
	if a.tracked != nil {
		return a.tracked
	}
	a.tracked = map[*types.Var]trackedField{}
	type fnField struct {
		fn ast.Node
		f  *types.Var
	}
	waits := map[*types.Var]token.Pos{}
	var adds []fnField
	addPos := map[fnField]token.Pos{}
	selfDone := map[fnField]bool{}
	for c := range a.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		f, name := a.fieldMethod(call)
		if f == nil || !isWaitGroup(f.Type()) {
			continue
		}
		var fn ast.Node
		for e := range c.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
			fn = e.Node()
			break
		}
		key := fnField{fn, f}
		switch name {
		case "Wait":
			if !waits[f].IsValid() {
				waits[f] = call.Pos()
			}
		case "Add", "Go":
			if !addPos[key].IsValid() {
				addPos[key] = call.Pos()
				adds = append(adds, key)
			}
		case "Done":
			if _, ok := c.Parent().Node().(*ast.DeferStmt); ok {
				selfDone[key] = true
			}
		}
	}
	for _, key := range adds {
		w, t := waits[key.f], a.tracked[key.f]
		if w.IsValid() && !t.add.IsValid() && !selfDone[key] {
			a.tracked[key.f] = trackedField{wait: w, add: addPos[key]}
		}
	}
	return a.tracked
}

// fieldMethod returns the field f and the method name of a call x.f.M(...),
// or nil.
func (a *analysis) fieldMethod(call *ast.CallExpr) (*types.Var, string) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
	if !ok {
		return nil, ""
	}
	s := a.info.Selections[inner]
	if s == nil || s.Kind() != types.FieldVal {
		return nil, ""
	}
	return s.Obj().(*types.Var), sel.Sel.Name
}

// untracked returns the WaitGroup field of the owner's receiver type that
// its other goroutines are counted in and its shutdown waits on, when g
// (a go statement of a method of that type) is not counted in it: its body
// never mentions the field, nor does a function of the package it calls,
// so nothing calls Done for it (an Add in the owner counts another one).
func (a *analysis) untracked(o *owner, g *Goroutine) *Untracked {
	if _, ok := g.Start.(*ast.GoStmt); !ok || o.fn.Obj == nil {
		return nil
	}
	recv := o.fn.Sig.Recv()
	if recv == nil {
		return nil
	}
	st, ok := deref(recv.Type()).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	tracked := a.trackedFields()
	if len(tracked) == 0 {
		return nil
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		t, ok := tracked[f]
		if !ok {
			continue
		}
		var body ast.Node
		switch {
		case g.Lit != nil:
			body = g.Lit.Body
		case g.Callee != nil:
			if d := a.decls[g.Callee]; d != nil {
				body = d.Body
			}
		}
		if a.waitsOn(o.fn.Body, f) {
			return nil // the shutdown itself: what it starts is its own (http.Server's onShutdown hooks)
		}
		if body == nil && g.Lit == nil && g.Callee == nil && a.unseenValue(g, recv) {
			// go handler(req, tx): a function value held in a local (a
			// handler looked up, a callback given): it cannot reach the
			// type's unexported WaitGroup unless an argument hands it over.
			return &Untracked{Field: f, Wait: t.wait, Add: t.add}
		}
		if body == nil || a.mentionsField(body, f) || a.callsMentioning(body, f) {
			return nil // it calls Done (or waits) itself, or through a helper
		}
		return &Untracked{Field: f, Wait: t.wait, Add: t.add}
	}
	return nil
}

// untrackedBeside is untracked for g, except that a goroutine bound to a
// stop channel or context (it ends when the type shuts down) escapes the
// WaitGroup only when its own owner counts other goroutines in that field
// (s.loops.Add(2); go a(); go b(); go c()): the owner means to count what
// it starts, and leaving one out lets the shutdown's Wait return while it
// still runs.
func (a *analysis) untrackedBeside(o *owner, g *Goroutine) *Untracked {
	u := a.untracked(o, g)
	if u == nil || !g.Bound || a.addsTo(o.fn.Body, u.Field) {
		return u
	}
	return nil
}

// addsTo reports whether body calls Add or Go on the WaitGroup field f.
func (a *analysis) addsTo(body *ast.BlockStmt, f *types.Var) bool {
	return flow.Mentions(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return false
		}
		g, name := a.fieldMethod(call)
		return g == f && (name == "Add" || name == "Go")
	})
}

// mentionsField reports whether n selects the field f anywhere.
func (a *analysis) mentionsField(n ast.Node, f *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if sel, ok := m.(*ast.SelectorExpr); ok {
			if s := a.info.Selections[sel]; s != nil && s.Obj() == f {
				found = true
			}
		}
		return !found
	})
	return found
}

// callsMentioning reports whether n calls a function of the package whose
// body selects the field f (a helper that calls Done).
func (a *analysis) callsMentioning(n ast.Node, f *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if call, ok := m.(*ast.CallExpr); ok && !found {
			var fn *types.Func
			switch x := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				fn, _ = a.info.Uses[x].(*types.Func)
			case *ast.SelectorExpr:
				fn, _ = a.info.Uses[x.Sel].(*types.Func)
			}
			if fn != nil {
				if d := a.decls[fn.Origin()]; d != nil && d.Body != nil && a.mentionsField(d.Body, f) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// unseenValue reports whether g runs a function value held in a local
// variable or parameter of its owner, whose arguments give it neither the
// owner's receiver nor a WaitGroup: nothing it is handed can count it.
func (a *analysis) unseenValue(g *Goroutine, recv *types.Var) bool {
	gs, ok := g.Start.(*ast.GoStmt)
	if !ok {
		return false
	}
	id, ok := ast.Unparen(gs.Call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := a.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return false
	}
	for _, arg := range gs.Call.Args {
		if analysisutil.ReferencesObject(a.info, arg, recv) {
			return false
		}
		if t := a.info.TypeOf(arg); t != nil && isWaitGroup(deref(t)) {
			return false
		}
	}
	return true
}

// waitsOn reports whether body calls Wait on the WaitGroup field f.
func (a *analysis) waitsOn(body *ast.BlockStmt, f *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Wait" {
			if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok {
				if s := a.info.Selections[inner]; s != nil && s.Obj() == f {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// receivesAny reports whether the function declared around pos (the
// shutdown that waits on a WaitGroup) receives from one of the fields:
// waits for a report on it, ranges over it, or selects on it.
func (a *analysis) receivesAny(pos token.Pos, fields map[types.Object]bool) bool {
	f := a.flow.EnclosingPos(pos)
	for f != nil && f.Parent != nil {
		f = f.Parent // the declaration, not a literal in it
	}
	if f == nil || f.Body == nil {
		return true // not seen: assume it does
	}
	body := f.Body
	isField := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		s := a.info.Selections[sel]
		return s != nil && fields[s.Obj()]
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			found = found || n.Op == token.ARROW && isField(n.X)
		case *ast.RangeStmt:
			found = found || isField(n.X)
		}
		return !found
	})
	return found
}
