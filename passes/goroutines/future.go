package goroutines

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// Future is an unbuffered channel a function makes, hands to its caller
// (returns it, or a value holding it), and sends one result on from a
// goroutine it starts: the send completes only if the caller receives, so
// a caller that stops waiting (a timeout, a canceled context, the first of
// several results) strands the goroutine on the send forever.
type Future struct {
	Make   *ast.CallExpr // make(chan T)
	Path   string        // the channel as the send spells it: ch, f.ch
	Owner  *ctxflow.Func
	Sender *Goroutine
	Send   *ast.SendStmt
	Return *ast.ReturnStmt // a return that hands the channel to the caller
	// Racers are the sends of other goroutines that race Send for the
	// channel, each once (fn's result against a timer): a caller that
	// takes the first value strands the rest.
	Racers []*ast.SendStmt
	// GivesUp are selects of callers in the package that receive from the
	// future beside other cases: when another case is taken, the caller
	// has stopped waiting and the sender is stranded.
	GivesUp []GiveUp
}

// GiveUp is a caller's select that can stop waiting for a future.
type GiveUp struct {
	Select *ast.SelectStmt
	Caller string
}

// futures finds the futures of the owner o: for each unbuffered channel made
// in o under a local name or a field of a local composite, returned to the
// caller, whose sends are one statement each of goroutine literals started
// by o outside its loops (not in a loop of the literal, not a select
// case, no close): one sender, or racers.
func (a *analysis) futures(o *owner) {
	type made struct {
		call *ast.CallExpr
		root types.Object
		path string
	}
	var makes []made
	returns := map[types.Object]*ast.ReturnStmt{}
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, rhs := range n.Rhs {
				id, ok := ast.Unparen(n.Lhs[i]).(*ast.Ident)
				if !ok {
					continue
				}
				obj := a.info.ObjectOf(id)
				if call := a.unbufferedMake(rhs); call != nil {
					makes = append(makes, made{call, obj, id.Name})
					continue
				}
				// f := &Future{ch: make(chan T)}
				lit := rhs
				if u, ok := ast.Unparen(lit).(*ast.UnaryExpr); ok {
					lit = u.X
				}
				cl, ok := ast.Unparen(lit).(*ast.CompositeLit)
				if !ok {
					continue
				}
				for _, elt := range cl.Elts {
					kv, ok := elt.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					key, ok := kv.Key.(*ast.Ident)
					if call := a.unbufferedMake(kv.Value); ok && call != nil {
						makes = append(makes, made{call, obj, id.Name + "." + key.Name})
					}
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if id, ok := ast.Unparen(r).(*ast.Ident); ok {
					if obj := a.info.Uses[id]; obj != nil && returns[obj] == nil {
						returns[obj] = n
					}
				}
			}
		}
		return true
	})
	for _, m := range makes {
		ret := returns[m.root]
		if ret == nil || m.root == nil || !a.declaredIn(m.root, o.fn) {
			continue
		}
		var senders []*Goroutine
		var sends []*ast.SendStmt
		once := true // each sender sends once
		inLoop := false
		for _, g := range o.gos {
			if g.Lit == nil {
				continue
			}
			ss := a.sendsOn(g.Lit, m.root, m.path)
			if len(ss) == 0 {
				continue
			}
			once = once && a.onePerRun(g.Lit, ss) && !g.Orphaned
			inLoop = inLoop || g.Loop != nil
			senders = append(senders, g)
			sends = append(sends, ss...)
		}
		if len(sends) == 0 || !once || len(senders) > 1 && inLoop || a.closes(o, m.root, m.path) {
			continue
		}
		for _, g := range senders {
			g.Orphaned = true
		}
		// Racers are the other goroutines' sends; one goroutine's sends on
		// exclusive paths are one result.
		var racers []*ast.SendStmt
		for _, s := range sends {
			if !inside(s, senders[0].Lit) {
				racers = append(racers, s)
			}
		}
		a.res.Futures = append(a.res.Futures, &Future{Make: m.call, Path: m.path, Owner: o.fn, Sender: senders[0], Send: sends[0], Return: ret, Racers: racers})
	}
}

// onePerRun reports whether the literal sends at most once per run: one
// send, or several none of which can reach another (`if err != nil { ch
// <- err; return }; ch <- s.after(ctx)`: one result on each path).
func (a *analysis) onePerRun(lit *ast.FuncLit, sends []*ast.SendStmt) bool {
	return len(sends) <= 1 || sendsApart(a.graphs.Func(lit), sends)
}

// inside reports whether n lies within m.
func inside(n, m ast.Node) bool { return m.Pos() <= n.Pos() && n.End() <= m.End() }

// unbufferedMake returns e when it is make(chan T) or make(chan T, 0).
func (a *analysis) unbufferedMake(e ast.Expr) *ast.CallExpr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !a.isBuiltin(call, "make") || len(call.Args) == 0 {
		return nil
	}
	if _, ok := a.info.TypeOf(call.Args[0]).Underlying().(*types.Chan); !ok {
		return nil
	}
	if len(call.Args) == 2 {
		tv := a.info.Types[call.Args[1]]
		if tv.Value == nil || constant.Sign(tv.Value) != 0 {
			return nil
		}
	}
	return call
}

// sendsOn returns the send statements of lit's body on the channel spelled
// path (rooted at root) that are sure to block alone: not in a select case,
// not in a loop of the literal. Any other send on it, or one in a nested
// literal, makes the result nil with a second entry, so that the caller
// counts more than one.
func (a *analysis) sendsOn(lit *ast.FuncLit, root types.Object, path string) []*ast.SendStmt {
	var out []*ast.SendStmt
	cur, ok := a.cursor(lit.Body)
	if !ok {
		return nil
	}
	for c := range cur.Preorder((*ast.SendStmt)(nil)) {
		s := c.Node().(*ast.SendStmt)
		if a.baseObj(s.Chan) != root || types.ExprString(s.Chan) != path {
			continue
		}
		if !a.plainStmt(c, lit) {
			return []*ast.SendStmt{s, s} // guarded, repeated or elsewhere: not a one-shot future
		}
		out = append(out, s)
	}
	return out
}

// plainStmt reports whether the statement at c runs at most once per call
// of lit and blocks by itself: no loop, select or nested literal of lit
// encloses it.
func (a *analysis) plainStmt(c inspector.Cursor, lit *ast.FuncLit) bool {
	for p := c.Parent(); p.Valid() && p.Node() != lit; p = p.Parent() {
		switch p.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.CommClause, *ast.FuncLit:
			return false
		}
	}
	return true
}

// closes reports whether the owner or one of its literals closes the
// channel (a done channel, not a result).
func (a *analysis) closes(o *owner, root types.Object, path string) bool {
	found := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && a.isBuiltin(call, "close") && len(call.Args) == 1 &&
			a.baseObj(call.Args[0]) == root && types.ExprString(call.Args[0]) == path {
			found = true
		}
		return !found
	})
	return found
}

// baseObj returns the variable at the base of a selector path: f for f.ch.
func (a *analysis) baseObj(e ast.Expr) types.Object {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return a.info.Uses[x]
		case *ast.SelectorExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// futureCallers fills the GivesUp of the package's futures: a call of the
// future's function whose channel a select receives from, directly
// (`case <-p.ping(ctx, a):`) or through a local it is assigned to once
// (`ch := p.ping(ctx, a)` ... `case v := <-ch:`), beside other cases.
func (a *analysis) futureCallers() {
	if len(a.res.Futures) == 0 {
		return
	}
	byFunc := map[*types.Func]*Future{}
	for _, f := range a.res.Futures {
		if f.Owner.Obj != nil {
			byFunc[f.Owner.Obj.Origin()] = f
		}
	}
	if len(byFunc) == 0 {
		return
	}
	// Locals assigned a future's channel: ch := p.ping(ctx, a).
	held := map[types.Object]*Future{}
	for c := range a.ins.Root().Preorder((*ast.AssignStmt)(nil)) {
		as := c.Node().(*ast.AssignStmt)
		if len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		if f := a.futureCall(byFunc, as.Rhs[0]); f != nil {
			if id, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident); ok {
				if obj := a.info.ObjectOf(id); obj != nil {
					held[obj] = f
				}
			}
		}
	}
	for c := range a.ins.Root().Preorder((*ast.SelectStmt)(nil)) {
		sel := c.Node().(*ast.SelectStmt)
		if len(sel.Body.List) < 2 {
			continue
		}
		var caller string
		for e := range c.Enclosing((*ast.FuncDecl)(nil)) {
			caller = e.Node().(*ast.FuncDecl).Name.Name
			break
		}
		seen := map[*Future]bool{}
		for _, cl := range sel.Body.List {
			comm := cl.(*ast.CommClause).Comm
			if comm == nil {
				continue
			}
			ch := receivedChan(comm)
			if ch == nil {
				continue
			}
			f := a.futureCall(byFunc, ch)
			if id, ok := ast.Unparen(ch).(*ast.Ident); ok && f == nil {
				f = held[a.info.Uses[id]]
			}
			if f != nil && !seen[f] {
				seen[f] = true
				f.GivesUp = append(f.GivesUp, GiveUp{Select: sel, Caller: caller})
			}
		}
	}
}

// futureCall returns the future whose function e calls, or nil.
func (a *analysis) futureCall(byFunc map[*types.Func]*Future, e ast.Expr) *Future {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil
	}
	fn := analysisutil.Callee(a.info, call)
	if fn == nil {
		return nil
	}
	return byFunc[fn.Origin()]
}

// receivedChan returns the channel a select comm receives from: <-ch as a
// statement, or on the right of v := <-ch / v, ok = <-ch.
func receivedChan(comm ast.Stmt) ast.Expr {
	var e ast.Expr
	switch s := comm.(type) {
	case *ast.ExprStmt:
		e = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			e = s.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}
