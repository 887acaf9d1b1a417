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
	// Work is set for a goroutine bound to a stop channel or context
	// when it runs this function, which goroutines counted in Field run
	// elsewhere: it does end, but maybe after the shutdown's Wait has
	// returned.
	Work *types.Func
}

// trackedField is what the package does with one WaitGroup field.
type trackedField struct {
	wait, add token.Pos
	// counted are the package functions that goroutines counted in the
	// field run (`wg.Add(1); go func() { defer wg.Done(); s.worker() }()`,
	// or a function that calls Done itself): the work the field is meant
	// to wait for.
	counted map[*types.Func]bool
}

// trackedFields returns, once per package, the WaitGroup fields of struct
// types that the package both adds to (Add, Go) and waits on, through a
// selector x.f, and that count goroutines: some Done on the field runs in
// a function other than one that adds to it (a goroutine's literal, a
// method it runs), or Go starts one. A field whose every Done sits beside
// its Add counts something else: open listeners (`if add { wg.Add(1) }
// else { wg.Done() }`), or the running call when the Done is deferred
// (h.streams.Add(1); defer h.streams.Done(): the WaitGroup counts open
// streams, and a shutdown that waits on it waits for handlers).
func (a *analysis) trackedFields() map[*types.Var]trackedField {
	if a.tracked != nil {
		return a.tracked
	}
	a.tracked = map[*types.Var]trackedField{}
	waits := map[*types.Var]token.Pos{}
	adds := map[*types.Var]token.Pos{}
	var order []*types.Var
	addsIn := map[ast.Node]map[*types.Var]bool{}
	type done struct {
		fn ast.Node
		f  *types.Var
	}
	var dones []done
	goes := map[*types.Var]bool{}
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
		switch name {
		case "Wait":
			if !waits[f].IsValid() {
				waits[f] = call.Pos()
			}
		case "Add", "Go":
			if !adds[f].IsValid() {
				adds[f] = call.Pos()
				order = append(order, f)
			}
			if addsIn[fn] == nil {
				addsIn[fn] = map[*types.Var]bool{}
			}
			addsIn[fn][f] = true
			goes[f] = goes[f] || name == "Go"
		case "Done":
			dones = append(dones, done{fn, f})
		}
	}
	counts := map[*types.Var]map[*types.Func]bool{}
	for _, d := range dones {
		if addsIn[d.fn][d.f] {
			continue // beside its Add: it counts something else
		}
		if counts[d.f] == nil {
			counts[d.f] = map[*types.Func]bool{}
		}
		a.countedWork(d.fn, counts[d.f])
	}
	for _, f := range order {
		if w := waits[f]; w.IsValid() && (counts[f] != nil || goes[f]) {
			a.tracked[f] = trackedField{wait: w, add: adds[f], counted: counts[f]}
		}
	}
	return a.tracked
}

// countedWork adds to work what a function that calls Done runs: itself,
// when it is declared in the package, and the package functions its body
// calls as statements of their own.
func (a *analysis) countedWork(fn ast.Node, work map[*types.Func]bool) {
	var body *ast.BlockStmt
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		if obj, ok := a.info.Defs[fn.Name].(*types.Func); ok {
			work[obj.Origin()] = true
		}
		body = fn.Body
	case *ast.FuncLit:
		body = fn.Body
	}
	if body == nil {
		return
	}
	for _, st := range body.List {
		if es, ok := st.(*ast.ExprStmt); ok {
			if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok {
				if callee := analysisutil.Callee(a.info, call); callee != nil && callee.Pkg() == a.pass.Pkg {
					work[callee.Origin()] = true
				}
			}
		}
	}
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
// WaitGroup only when the field's use says it should be counted: the
// method starting it counts its other goroutines in the field itself
// (s.loops.Add(2) before three go statements), or the work it runs is
// counted in the field where another go statement starts it
// (`p.wg.Add(1); go func() { defer p.wg.Done(); p.worker(ctx) }()`
// elsewhere, `go p.worker(ctx)` here). Then the shutdown signals it and
// waits on the field, and the Wait returns while it may still be inside a
// round of its work (a worker in its handler), racing whatever the
// shutdown tears down next. A field that counts other work (a monitor
// goroutine, the accept loops) says nothing about a watcher it never
// counts.
func (a *analysis) untrackedBeside(o *owner, g *Goroutine) *Untracked {
	u := a.untracked(o, g)
	if u == nil || !g.Bound || a.addsTo(o.fn.Body, u.Field) {
		return u
	}
	counted := a.trackedFields()[u.Field].counted
	if g.Callee != nil {
		if counted[g.Callee.Origin()] {
			u.Work = g.Callee.Origin()
			return u
		}
		return nil
	}
	if g.Lit != nil {
		ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if fn := analysisutil.Callee(a.info, n); fn != nil && counted[fn.Origin()] && u.Work == nil {
					u.Work = fn.Origin()
				}
			}
			return u.Work == nil
		})
		if u.Work != nil {
			return u
		}
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
			if s := a.info.Selections[sel]; s != nil && (s.Obj() == f || s.Kind() == types.FieldVal && s.Obj().(*types.Var).Origin() == f) {
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
