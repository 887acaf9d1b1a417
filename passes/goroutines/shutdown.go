package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// Unwaited is a shutdown method that tells a type's goroutines to stop
// and returns, on some path, without waiting for them, though the type
// keeps a handle to wait on (a WaitGroup or group field that counts them,
// or a channel they close when they end) and another of its methods both
// signals them and waits on that handle:
//
//	func (w *Worker) Shutdown() { w.cancel() }             // returns while they run
//	func (w *Worker) Drain()    { w.cancel(); w.wg.Wait() } // the type's own way
//
// A type whose waiting method does not signal (Stop, then Wait) splits the
// two on purpose, and so does one whose waiting method calls the shutdown
// (StopAndWait calls Stop): neither is reported.
type Unwaited struct {
	Method *ast.FuncDecl
	// Signal is the cancel call or close that tells the goroutines to stop.
	Signal ast.Node
	// Handle is the field that waits for them, HandleKind how ("wg" for a
	// WaitGroup or group's Wait, "done" for a channel they close).
	Handle     *types.Var
	HandleKind string
	// Exit is where Method returns without waiting.
	Exit token.Pos
	// Waiter is the method that signals and waits; WaitAt its wait.
	Waiter *types.Func
	WaitAt ast.Node
}

// unwaitedShutdowns fills res.Unwaited.
func (a *analysis) unwaitedShutdowns() {
	// Candidates first: a shutdown-named method that signals directly.
	type cand struct {
		fn      *types.Func
		decl    *ast.FuncDecl
		signals []ast.Node
	}
	var cands []cand
	cancels := a.cancelFields()
	for fn, d := range a.decls {
		if d.Recv == nil || !slices.Contains(shutdownNames, fn.Name()) {
			continue
		}
		if s := a.signalsIn(d.Body, cancels, nil); len(s) > 0 {
			cands = append(cands, cand{fn, d, s})
		}
	}
	if len(cands) == 0 {
		return
	}
	handles := a.waitHandles()
	if len(handles) == 0 {
		return
	}
	slices.SortFunc(cands, func(x, y cand) int { return int(x.decl.Pos() - y.decl.Pos()) })
	for _, c := range cands {
		for _, h := range handles {
			if !recvHas(c.fn, h.field) || a.startsUncounted(recvNamed(c.fn), h) {
				continue
			}
			if u := a.unwaitedBy(c.fn, c.decl, c.signals, h, cancels); u != nil {
				a.res.Unwaited = append(a.res.Unwaited, u)
				break
			}
		}
	}
}

// startsUncounted reports whether a method or constructor of tn starts a
// goroutine whose body (or a function of the package it calls) never
// mentions the handle: the type tracks its goroutines inconsistently, and
// the goroutine that escapes is the finding (untracked), not a shutdown
// that would not wait for it anyway.
func (a *analysis) startsUncounted(tn *types.TypeName, h waitHandle) bool {
	for _, g := range a.res.Goroutines {
		if _, isGo := g.Start.(*ast.GoStmt); !isGo {
			continue
		}
		top := g.Owner
		for top != nil && top.Parent != nil {
			top = top.Parent
		}
		if top == nil || top.Obj == nil || !ofType(top.Obj, tn) {
			continue
		}
		var body ast.Node
		switch {
		case g.Lit != nil:
			body = g.Lit.Body
		case g.Callee != nil:
			if d := a.decls[g.Callee.Origin()]; d != nil {
				body = d.Body
			}
		}
		if body == nil {
			continue
		}
		if !a.mentionsField(body, h.field) && !a.callsMentioning(body, h.field) {
			return true
		}
	}
	return false
}

// ofType reports whether fn is a method of tn or returns a tn or *tn.
func ofType(fn *types.Func, tn *types.TypeName) bool {
	if recvNamed(fn) == tn {
		return true
	}
	res := fn.Type().(*types.Signature).Results()
	for i := range res.Len() {
		if n, ok := types.Unalias(deref(res.At(i).Type())).(*types.Named); ok && n.Origin().Obj() == tn {
			return true
		}
	}
	return false
}

// recvHas reports whether the struct fn's receiver points to declares
// the field f.
func recvHas(fn *types.Func, f *types.Var) bool {
	n := recvNamed(fn)
	if n == nil {
		return false
	}
	st, ok := n.Type().Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if st.Field(i).Origin() == f {
			return true
		}
	}
	return false
}

// unwaitedBy returns the report for fn, a shutdown of h's type that
// signals at signals, when a path from the first signal returns without
// waiting on h and another method of the type signals and waits on h.
func (a *analysis) unwaitedBy(fn *types.Func, decl *ast.FuncDecl, signals []ast.Node, h waitHandle, cancels map[*types.Var]bool) *Unwaited {
	g := a.graphs.Func(decl)
	if g == nil {
		return nil
	}
	p, ok := g.Locate(signals[0])
	if !ok {
		return nil
	}
	waits := func(n ast.Node) bool { return a.waitsFor(n, h, true) }
	exit, ok := g.ExitAvoiding(p, waits)
	if !ok {
		return nil
	}
	// The type's own way to shut down: a method that signals and waits,
	// and does not call fn (StopAndWait calling Stop makes Stop the
	// non-waiting half on purpose). A method that only waits (Wait after
	// Stop) splits the two on purpose too.
	recv := recvNamed(fn)
	var waiter *types.Func
	var waitAt ast.Node
	for m, d := range a.decls {
		if m == fn || d.Recv == nil || recvNamed(m) != recv {
			continue
		}
		at := a.waitIn(d.Body, h)
		if at == nil {
			continue
		}
		if len(a.signalsIn(d.Body, cancels, h.field)) == 0 || a.calls(d.Body, fn) {
			return nil
		}
		if waiter == nil || d.Pos() < a.decls[waiter].Pos() {
			waiter, waitAt = m, at
		}
	}
	if waiter == nil {
		return nil
	}
	return &Unwaited{
		Method: decl, Signal: signals[0], Handle: h.field, HandleKind: h.kind,
		Exit: exit.Pos(decl.Body), Waiter: waiter, WaitAt: waitAt,
	}
}

// calls reports whether body calls fn.
func (a *analysis) calls(body ast.Node, fn *types.Func) bool {
	return flow.Mentions(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		return ok && originOf(analysisutil.Callee(a.info, call)) == fn
	})
}

func originOf(fn *types.Func) *types.Func {
	if fn == nil {
		return nil
	}
	return fn.Origin()
}

// recvNamed returns the named type of a method's receiver, or nil.
func recvNamed(fn *types.Func) *types.TypeName {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	if n, ok := types.Unalias(deref(sig.Recv().Type())).(*types.Named); ok {
		return n.Origin().Obj()
	}
	return nil
}

// waitHandle is a field of a type that its goroutines can be waited on
// with.
type waitHandle struct {
	field *types.Var // the declared field (Origin)
	kind  string     // "wg": Wait on it; "done": receive from it
}

// waitHandles returns the package's wait handles: WaitGroup fields that
// trackedFields keeps (added to, waited on, counting goroutines), group
// fields that goroutines are started on and waited on, and channel fields
// a goroutine closes when it ends and a method receives from.
func (a *analysis) waitHandles() []waitHandle {
	var hs []waitHandle
	seen := map[*types.Var]bool{}
	addH := func(f *types.Var, kind string) {
		f = f.Origin()
		if !seen[f] {
			seen[f] = true
			hs = append(hs, waitHandle{f, kind})
		}
	}
	for f := range a.trackedFields() {
		addH(f, "wg")
	}
	// Group fields: x.f.Wait() on a field of a group type (its Go starts
	// goroutines the Wait joins), however the goroutines were started on
	// it (on a local stored in the field afterwards, too).
	for c := range a.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		f, name := a.fieldMethod(call)
		if f == nil || name != "Wait" || isWaitGroup(f.Type()) {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(f.Type(), true, f.Pkg(), "Go")
		if m, ok := obj.(*types.Func); ok && isGroupGo(m) {
			addH(f, "wg")
		}
	}
	// Done channels: closed by a goroutine's own body (or a function it
	// runs), received from elsewhere.
	var received map[*types.Var]bool
	for _, g := range a.res.Goroutines {
		var body *ast.BlockStmt
		switch {
		case g.Lit != nil:
			body = g.Lit.Body
		case g.Callee != nil:
			if d := a.decls[g.Callee.Origin()]; d != nil {
				body = d.Body
			}
		}
		if body == nil {
			continue
		}
		ast.Inspect(body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !a.isBuiltin(call, "close") || len(call.Args) != 1 {
				return true
			}
			f := a.fieldOf(call.Args[0])
			if f == nil {
				return true
			}
			if received == nil {
				received = a.receivedFields()
			}
			if received[f] {
				addH(f, "done")
			}
			return true
		})
	}
	slices.SortFunc(hs, func(x, y waitHandle) int { return int(x.field.Pos() - y.field.Pos()) })
	return hs
}

// fieldOf returns the declared field that e, x.f, selects, or nil.
func (a *analysis) fieldOf(e ast.Expr) *types.Var {
	if _, sel := ast.Unparen(e).(*ast.SelectorExpr); !sel {
		return nil
	}
	if v := analysisutil.VarObject(a.info, e); v != nil && v.IsField() {
		return v.Origin()
	}
	return nil
}

// receivedFields returns the channel fields the package receives from or
// ranges over somewhere (in a declared function's body), in one walk of
// the inspector's index.
func (a *analysis) receivedFields() map[*types.Var]bool {
	out := map[*types.Var]bool{}
	for c := range a.ins.Root().Preorder((*ast.UnaryExpr)(nil), (*ast.RangeStmt)(nil)) {
		var x ast.Expr
		switch m := c.Node().(type) {
		case *ast.UnaryExpr:
			if m.Op == token.ARROW {
				x = m.X
			}
		case *ast.RangeStmt:
			x = m.X
		}
		if x == nil {
			continue
		}
		if f := a.fieldOf(x); f != nil {
			for e := range c.Enclosing((*ast.FuncDecl)(nil)) {
				if d := e.Node().(*ast.FuncDecl); d.Body != nil {
					out[f] = true
				}
				break
			}
		}
	}
	return out
}

// waitIn returns where body waits on h (itself, not through a call), or
// nil.
func (a *analysis) waitIn(body ast.Node, h waitHandle) ast.Node {
	return a.waitNode(body, h, false)
}

// waitsFor reports whether n waits on h.
func (a *analysis) waitsFor(n ast.Node, h waitHandle, viaCalls bool) bool {
	return a.waitNode(n, h, viaCalls) != nil
}

// waitNode returns the first place in n, outside function literals, that
// waits on h: Wait on the field, a receive from it, or any other use of
// the field than counting (Add, Done, Go) and closing it, which hands it
// to a helper. With viaCalls, a call of a package function whose body
// waits on h counts too.
func (a *analysis) waitNode(n ast.Node, h waitHandle, viaCalls bool) ast.Node {
	var at ast.Node
	ast.Inspect(n, func(m ast.Node) bool {
		if at != nil {
			return false
		}
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if f, name := a.fieldMethod(m); f != nil && f.Origin() == h.field {
				if name != "Add" && name != "Done" && name != "Go" && name != "TryGo" && name != "SetLimit" {
					at = m
				}
				return false
			}
			if a.isBuiltin(m, "close") && len(m.Args) == 1 && a.fieldOf(m.Args[0]) == h.field {
				return false
			}
			if viaCalls {
				if fn := originOf(analysisutil.Callee(a.info, m)); fn != nil {
					if d := a.decls[fn]; d != nil && a.waitIn(d.Body, h) != nil {
						at = m
						return false
					}
				}
			}
		case *ast.UnaryExpr:
			if m.Op == token.ARROW && a.fieldOf(m.X) == h.field {
				at = m
				return false
			}
		case *ast.SelectorExpr:
			if a.fieldOf(m) == h.field {
				at = m
				return false
			}
		}
		return true
	})
	return at
}

// signalsIn returns the statements of body (outside function literals)
// that tell goroutines to stop: a call of a cancel-function field, or a
// close of a channel field.
func (a *analysis) signalsIn(body *ast.BlockStmt, cancels map[*types.Var]bool, h *types.Var) []ast.Node {
	var out []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if a.isBuiltin(n, "close") && len(n.Args) == 1 {
				if f := a.fieldOf(n.Args[0]); f != nil && f != h {
					out = append(out, n)
				}
				return true
			}
			if f := a.fieldOf(n.Fun); f != nil && cancels[f] {
				out = append(out, n)
			}
		}
		return true
	})
	return out
}

// cancelFields returns the package's fields that hold a context's cancel
// function: of type context.CancelFunc or CancelCauseFunc, or assigned a
// result of a context function (s.cancel = cancel after
// `ctx, cancel := context.WithCancel(ctx)`, or directly).
func (a *analysis) cancelFields() map[*types.Var]bool {
	out := map[*types.Var]bool{}
	fromContext := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if id, ok := e.(*ast.Ident); ok {
			v, ok := a.info.Uses[id].(*types.Var)
			return ok && a.definedByContext(v)
		}
		return false
	}
	for c := range a.ins.Root().Preorder((*ast.AssignStmt)(nil), (*ast.KeyValueExpr)(nil), (*ast.Field)(nil)) {
		switch n := c.Node().(type) {
		case *ast.Field:
			t := a.info.TypeOf(n.Type)
			if t != nil && (analysisutil.IsNamed(t, "context", "CancelFunc") || analysisutil.IsNamed(t, "context", "CancelCauseFunc")) {
				for _, name := range n.Names {
					if v, ok := a.info.Defs[name].(*types.Var); ok && v.IsField() {
						out[v] = true
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if f := a.fieldOf(l); f != nil && fromContext(n.Rhs[i]) {
						out[f] = true
					}
				}
			}
			if len(n.Rhs) == 1 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok && isContextFunc(analysisutil.Callee(a.info, call)) {
					for _, l := range n.Lhs {
						if f := a.fieldOf(l); f != nil && isFuncType(f.Type()) {
							out[f] = true
						}
					}
				}
			}
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok && fromContext(n.Value) {
				if v, ok := a.info.Uses[key].(*types.Var); ok && v.IsField() {
					out[v.Origin()] = true
				}
			}
		}
	}
	return out
}

// definedByContext reports whether the local v is declared by an
// assignment from a context function (ctx, cancel := context.WithCancel).
func (a *analysis) definedByContext(v *types.Var) bool {
	if !isFuncType(v.Type()) {
		return false
	}
	_, _, rhs, _, ok := analysisutil.Declaration(a.ins, v)
	if !ok || len(rhs) != 1 {
		return false
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	return ok && isContextFunc(analysisutil.Callee(a.info, call))
}

func isContextFunc(fn *types.Func) bool {
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context"
}
