package goroutines

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// chanUse is what an owner and its goroutines do with one channel the owner
// makes.
type chanUse struct {
	v             *types.Var
	make          *ast.CallExpr
	senders       []*Goroutine                   // goroutines sending on it, in order
	sends         map[*Goroutine][]*ast.SendStmt // blocking (bare) sends
	anySend       map[*Goroutine]bool
	loopy         bool       // a send lies in a loop inside its goroutine
	recvs         []ast.Node // owner receives: *ast.UnaryExpr or *ast.RangeStmt
	blockingRecv  ast.Node   // an owner receive outside any select
	closedByOwner bool
	bad           bool // escapes, reassigned, received by a goroutine, sent by the owner
}

// orphans finds the result channels of o whose senders are abandoned, and
// receives of o that no sender completes.
func (a *analysis) orphans(o *owner) {
	if a.isMain(o.fn) {
		return // a send left blocked when main (or its whole body) returns dies with the process
	}
	uses := a.channelsMadeBy(o)
	if len(uses) == 0 {
		return
	}
	// The senders are o's goroutines and those they start in turn (go
	// func() { for ... { go func() { ch <- r }() } }(): a feeder that
	// fans out), each sending on o's channel.
	senderOf := map[*ast.FuncLit]*Goroutine{}
	// again holds the other starts of a literal bound to a local and
	// started more than once (`run := func() { ch <- r }; go run(); ...; go
	// run()`): each start is a sender of its own.
	again := map[*ast.FuncLit][]*Goroutine{}
	var addSenders func(gs []*Goroutine, top *Goroutine, depth int)
	addSenders = func(gs []*Goroutine, top *Goroutine, depth int) {
		for _, g := range gs {
			if g.Lit == nil {
				continue
			}
			if senderOf[g.Lit] != nil {
				if depth == 0 && senderOf[g.Lit] != g {
					again[g.Lit] = append(again[g.Lit], g)
				}
				continue
			}
			senderOf[g.Lit] = g
			t := top
			if t == nil {
				t = g
			} else {
				a.topOf[g] = t
			}
			if depth < 3 {
				if inner, ok := a.owners[ast.Node(g.Lit)]; ok && inner != nil {
					addSenders(inner.gos, t, depth+1)
				}
			}
		}
	}
	addSenders(o.gos, nil, 0)
	body, ok := a.cursor(o.fn.Body)
	if !ok {
		return
	}
	for c := range body.Preorder((*ast.Ident)(nil)) {
		id := c.Node().(*ast.Ident)
		v, _ := a.info.Uses[id].(*types.Var)
		u := uses[v]
		if u == nil || u.bad {
			continue
		}
		a.classifyChanUse(o, u, c, senderOf)
	}
	for _, u := range uses {
		if u.bad {
			continue
		}
		for _, g := range u.senders {
			for _, h := range again[g.Lit] {
				if !u.anySend[h] {
					u.anySend[h] = true
					u.senders = append(u.senders, h)
					u.sends[h] = u.sends[g]
				}
			}
		}
	}
	for _, u := range uses {
		if u.bad || len(u.senders) == 0 {
			continue
		}
		if !a.orphan(o, u) {
			a.stall(o, u)
		}
	}
}

// channelsMadeBy returns the channel variables o assigns exactly once from
// make(chan T[, n]), outside function literals.
func (a *analysis) channelsMadeBy(o *owner) map[*types.Var]*chanUse {
	uses := map[*types.Var]*chanUse{}
	record := func(id *ast.Ident, rhs ast.Expr) {
		call, ok := ast.Unparen(rhs).(*ast.CallExpr)
		if !ok || !a.isBuiltin(call, "make") || len(call.Args) == 0 {
			return
		}
		if _, ok := a.info.TypeOf(call.Args[0]).Underlying().(*types.Chan); !ok {
			return
		}
		if v, ok := a.info.Defs[id].(*types.Var); ok {
			uses[v] = &chanUse{v: v, make: call, sends: map[*Goroutine][]*ast.SendStmt{}, anySend: map[*Goroutine]bool{}}
		}
	}
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						record(id, n.Rhs[i])
					}
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					record(id, n.Values[i])
				}
			}
		}
		return true
	})
	return uses
}

// classifyChanUse records one use of u's channel at cursor c.
func (a *analysis) classifyChanUse(o *owner, u *chanUse, c inspector.Cursor, senderOf map[*ast.FuncLit]*Goroutine) {
	id := c.Node().(*ast.Ident)
	// The innermost function literal between the use and the owner.
	var lit *ast.FuncLit
	for e := range c.Enclosing((*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
		if e.Node() == o.fn.Node {
			break
		}
		if l, ok := e.Node().(*ast.FuncLit); ok {
			lit = l
			break
		}
	}
	var g *Goroutine
	if lit != nil {
		if g = senderOf[lit]; g == nil {
			u.bad = true // captured by another closure: unknown receivers
			return
		}
	}
	parent := c.Parent().Node()
	switch p := parent.(type) {
	case *ast.UnaryExpr:
		if p.Op != token.ARROW {
			u.bad = true
			return
		}
		if g != nil {
			u.bad = true // a goroutine receives: not a result channel
			return
		}
		u.recvs = append(u.recvs, p)
		if !o.isComm(c.Parent()) && u.blockingRecv == nil {
			u.blockingRecv = p
		}
	case *ast.RangeStmt:
		if p.X != id || g != nil {
			u.bad = true
			return
		}
		u.recvs = append(u.recvs, p)
		if u.blockingRecv == nil {
			u.blockingRecv = p
		}
	case *ast.SendStmt:
		if p.Chan != id || g == nil {
			u.bad = true
			return
		}
		if !u.anySend[g] {
			u.anySend[g] = true
			u.senders = append(u.senders, g)
		}
		// A send that is a select's case (`case ch <- v:`) can be given up
		// for another case; one in a case's body blocks like any other.
		if cc, inSelect := c.Parent().Parent().Node().(*ast.CommClause); !inSelect || cc.Comm != ast.Stmt(p) {
			u.sends[g] = append(u.sends[g], p)
		}
		for e := range c.Enclosing((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.FuncLit)(nil)) {
			if _, ok := e.Node().(*ast.FuncLit); ok {
				break
			}
			u.loopy = true
			break
		}
	case *ast.CallExpr:
		switch {
		case a.isBuiltin(p, "len"), a.isBuiltin(p, "cap"):
		case a.isBuiltin(p, "close"):
			if g == nil {
				u.closedByOwner = true
			}
		default:
			if !a.senderCall(o, u, c, p) {
				u.bad = true
			}
		}
	default:
		u.bad = true
	}
}

// senderCall handles `go f(..., ch, ...)` where f is a function of this
// package that only sends on that parameter: the goroutine is a sender and
// its sends are f's. It reports false for any other call.
func (a *analysis) senderCall(o *owner, u *chanUse, c inspector.Cursor, call *ast.CallExpr) bool {
	gs, ok := c.Parent().Parent().Node().(*ast.GoStmt)
	if !ok || gs.Call != call {
		return false
	}
	var g *Goroutine
	for _, x := range o.gos {
		if x.Start == gs {
			g = x
		}
	}
	if g == nil || g.Callee == nil || g.Callee.Pkg() != a.pass.Pkg {
		return false
	}
	decl := a.decls[g.Callee]
	if decl == nil {
		return false
	}
	idx := -1
	for i, arg := range call.Args {
		if arg == c.Node() {
			idx = i
		}
	}
	sig := g.Callee.Type().(*types.Signature)
	if idx < 0 || idx >= sig.Params().Len() || (sig.Variadic() && idx >= sig.Params().Len()-1) {
		return false
	}
	param := sig.Params().At(idx)
	// Every use of the parameter must be a send (bare or in a select) in
	// the function's own body.
	var sends []*ast.SendStmt
	loopy, ok := false, true
	comm := map[ast.Stmt]bool{}
	inspectNode(decl.Body, func(n ast.Node) bool {
		if cc, isCC := n.(*ast.CommClause); isCC && cc.Comm != nil {
			comm[cc.Comm] = true
		}
		return true
	})
	var stack []ast.Node
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, isID := n.(*ast.Ident)
		if !isID || a.info.Uses[id] != param {
			return true
		}
		send, isSend := stack[len(stack)-2].(*ast.SendStmt)
		if !isSend || send.Chan != id {
			ok = false
			return true
		}
		for _, s := range stack[:len(stack)-2] {
			switch s.(type) {
			case *ast.FuncLit:
				ok = false
			case *ast.ForStmt, *ast.RangeStmt:
				loopy = true
			}
		}
		if !comm[send] {
			sends = append(sends, send)
		}
		return true
	})
	if !ok {
		return false
	}
	if !u.anySend[g] {
		u.anySend[g] = true
		u.senders = append(u.senders, g)
	}
	u.sends[g] = append(u.sends[g], sends...)
	u.loopy = u.loopy || loopy
	return true
}

// isComm reports whether the receive at c is the comm of a select clause.
func (o *owner) isComm(c inspector.Cursor) bool {
	for p := c.Parent(); p.Valid(); p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.ExprStmt, *ast.AssignStmt:
			return o.comms[n]
		case *ast.ParenExpr:
			continue
		}
		return false
	}
	return false
}

// capacity returns the constant buffer size of make, and false when it is
// not constant.
func (a *analysis) capacity(call *ast.CallExpr) (int, bool) {
	if len(call.Args) < 2 {
		return 0, true
	}
	tv, ok := a.info.Types[call.Args[1]]
	if !ok || tv.Value == nil {
		return 0, false
	}
	n, ok := constant.Int64Val(constant.ToInt(tv.Value))
	return int(n), ok
}

// loopBody returns the body of a for or range statement.
func loopBody(l ast.Stmt) *ast.BlockStmt {
	switch l := l.(type) {
	case *ast.ForStmt:
		return l.Body
	case *ast.RangeStmt:
		return l.Body
	}
	return nil
}

// within reports whether n lies inside the block b.
func within(n ast.Node, b *ast.BlockStmt) bool {
	return b != nil && b.Pos() <= n.Pos() && n.End() <= b.End()
}

// sendsOnce reports whether each sender of u sends on it at most once on
// any path: no send is in a loop of the goroutine, and none reaches
// another (`if err != nil { ch <- 0; return }; ch <- n` sends once).
func (a *analysis) sendsOnce(u *chanUse, senders []*Goroutine) bool {
	if u.loopy {
		return false
	}
	for _, g := range senders {
		sends := u.sends[g]
		if len(sends) <= 1 {
			continue
		}
		if !sendsApart(a.bodyGraph(g), sends) {
			return false
		}
	}
	return true
}

// sendsApart reports whether no path of graph from one of sends reaches
// one of them again: each run of the function makes at most one of them.
func sendsApart(graph *flow.Graph, sends []*ast.SendStmt) bool {
	if graph == nil {
		return false
	}
	isSend := func(n ast.Node) bool {
		s, ok := n.(*ast.SendStmt)
		return ok && slices.Contains(sends, s)
	}
	for _, s := range sends {
		p, ok := graph.Locate(s)
		if !ok {
			return false
		}
		if _, again := graph.Reaches(p.Next(), isSend, nil); again {
			return false
		}
	}
	return true
}

// slotPerRound reports whether u's buffer, of a size known only at run
// time, holds one value per round of the loop that starts its senders:
// make(chan T, len(xs)) for a range over xs, make(chan T, n) for
// `for i := 0; i < n; i++`, each sender started in that loop and sending
// once.
func (a *analysis) slotPerRound(u *chanUse, senders []*Goroutine, loop ast.Stmt) bool {
	if loop == nil || len(u.make.Args) < 2 || !a.sendsOnce(u, senders) {
		return false
	}
	for _, g := range senders {
		if g.Loop != loop {
			return false
		}
	}
	size := ast.Unparen(u.make.Args[1])
	count, ok := a.roundCount(loop)
	return ok && types.ExprString(size) == count
}

// roundCount spells the number of rounds of a loop as an expression, when
// it is visible from the loop's header: len(xs) for `range xs` over a
// slice, map, array or string, n for `for i := 0; i < n; i++`. The
// expression must have no calls; that it has the same value at the make
// and at the loop is taken from the source (the same spelling), not
// proven.
func (a *analysis) roundCount(loop ast.Stmt) (string, bool) {
	pure := func(e ast.Expr) bool {
		ok := true
		ast.Inspect(e, func(n ast.Node) bool {
			if _, call := n.(*ast.CallExpr); call {
				ok = false
			}
			return ok
		})
		return ok
	}
	switch l := loop.(type) {
	case *ast.RangeStmt:
		if !pure(l.X) {
			return "", false
		}
		switch t := a.info.TypeOf(l.X).Underlying().(type) {
		case *types.Slice, *types.Map, *types.Array:
			return "len(" + types.ExprString(l.X) + ")", true
		case *types.Basic:
			switch {
			case t.Info()&types.IsInteger != 0: // range n
				return types.ExprString(l.X), true
			case t.Info()&types.IsString != 0: // at most len(s) runes
				return "len(" + types.ExprString(l.X) + ")", true
			}
		}
	case *ast.ForStmt:
		be, ok := l.Cond.(*ast.BinaryExpr)
		init, ok2 := l.Init.(*ast.AssignStmt)
		if !ok || !ok2 || be.Op != token.LSS || len(init.Lhs) != 1 || len(init.Rhs) != 1 || !pure(be.Y) {
			return "", false
		}
		if lit, ok := init.Rhs[0].(*ast.BasicLit); !ok || lit.Value != "0" {
			return "", false
		}
		if id, ok := be.X.(*ast.Ident); !ok || types.ExprString(init.Lhs[0]) != id.Name {
			return "", false
		}
		return types.ExprString(be.Y), true
	}
	return "", false
}

// orphan reports whether u's blocking senders can be abandoned by o, and
// records the Orphan.
func (a *analysis) orphan(o *owner, u *chanUse) bool {
	var senders []*Goroutine
	many := u.loopy
	var senderLoop ast.Stmt
	for _, g := range u.senders {
		if len(u.sends[g]) == 0 {
			continue
		}
		senders = append(senders, g)
		if g.Loop != nil {
			many = true
			senderLoop = g.Loop
		}
	}
	if len(senders) == 0 {
		return false
	}
	if many && !u.loopy && senderLoop != nil && len(senders) == 1 && within(u.make, loopBody(senderLoop)) {
		// A channel made in the round that starts its sender: each round
		// has a channel of its own and one sender on it.
		many, senderLoop = false, nil
	}
	if many && (len(senders) > 1 || senderLoop != nil) {
		// With many senders, each must send on every path: when only some
		// do (the last one to finish, say), the number of sends is not the
		// number of senders. (One producer sending in a loop sends an
		// unknown number of times either way: a receiver that leaves
		// early can strand its next send.)
		// A goroutine that skips the send on its own outcome (its error)
		// counts as a possible sender: several may still send.
		for _, g := range senders {
			if a.sendAvoidable(a.bodyGraph(g), u.sends[g]) && !a.ownDecision(g) {
				return false
			}
		}
	}
	k, ok := a.capacity(u.make)
	if !ok {
		if many && a.slotPerRound(u, senders, senderLoop) {
			a.roomy[u.v] = true
		}
		return false
	}
	if !many && k >= len(senders) {
		if !u.loopy && a.sendsOnce(u, senders) {
			a.roomy[u.v] = true
		}
		return false
	}
	if many && k > 0 {
		// A buffer holding one result per sender: a constant number of
		// goroutines, each sending once, no more than the buffer.
		if u.loopy || senderLoop == nil {
			return false
		}
		if n, ok := a.constIterations(senderLoop); ok && n <= int64(k) {
			if a.sendsOnce(u, senders) {
				a.roomy[u.v] = true
			}
			return false
		}
		for _, g := range senders {
			if g.Loop != senderLoop || len(u.sends[g]) != 1 {
				return false
			}
		}
	}
	w := &orphanWalk{a: a, o: o, u: u, many: many, k: k, starts: map[ast.Node]int{}, drains: map[ast.Stmt]bool{}, outcome: map[types.Object]bool{}, selects: map[*ast.CommClause]*ast.SelectStmt{}}
	// Channels the senders signal besides u: a receiver that takes one of
	// those instead has heard from that sender, which then does not send
	// (a success channel next to an error channel).
	for _, g := range senders {
		if g.Lit == nil {
			continue
		}
		inspectNode(g.Lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SendStmt:
				if obj := rootObj(a.info, n.Chan); obj != nil && obj != u.v {
					w.outcome[obj] = true
				}
			case *ast.CallExpr:
				if a.isBuiltin(n, "close") && len(n.Args) == 1 {
					if obj := rootObj(a.info, n.Args[0]); obj != nil {
						w.outcome[obj] = true
					}
				}
			}
			return true
		})
	}
	w.limit = len(senders)
	if many {
		w.limit = k + 2
	}
	for _, g := range senders {
		start := g.Start
		if t, ok := a.topOf[g]; ok {
			start = t.Start // started by the goroutine o starts there
		}
		p, ok := o.graph.Locate(start)
		if !ok {
			return false
		}
		w.starts[p.Node()]++
	}
	for _, r := range u.recvs {
		if l := a.loopAround(o, r, senders); l != nil {
			w.drains[l] = true
		}
	}
	exit, exitPos, via := w.run()
	if exitPos == token.NoPos {
		return false
	}
	orph := &Orphan{Chan: u.v, Make: u.make, Cap: k, Owner: o.fn, Many: many, Count: len(senders),
		SenderLoop: senderLoop, Exit: exit, ExitPos: exitPos, Via: via}
	seen := map[*ast.SendStmt]bool{}
	for _, g := range senders {
		orph.Senders = append(orph.Senders, g)
		for _, st := range u.sends[g] {
			if !seen[st] { // one literal started twice sends at the same place
				seen[st] = true
				orph.Sends = append(orph.Sends, st)
			}
		}
		g.Orphaned = true
	}
	a.res.Orphans = append(a.res.Orphans, orph)
	return true
}

// bodyGraph returns the control flow of g's body: its literal, or the
// function of this package it calls.
func (a *analysis) bodyGraph(g *Goroutine) *flow.Graph {
	if g.Lit != nil {
		return a.graphs.Func(g.Lit)
	}
	if decl := a.decls[g.Callee]; decl != nil {
		return a.graphs.Func(decl)
	}
	return nil
}

// sendAvoidable reports whether the body g can return without executing one of
// sends.
func (a *analysis) sendAvoidable(g *flow.Graph, sends []*ast.SendStmt) bool {
	if g == nil {
		return true
	}
	isSend := map[ast.Node]bool{}
	for _, s := range sends {
		isSend[s] = true
	}
	return !g.OnEveryPath(g.Entry(), func(n ast.Node) bool { return isSend[n] })
}

// loopAround returns the innermost loop of o around the receive r that
// starts none of the senders: a loop that drains the channel. A range over
// the channel is its own loop.
func (a *analysis) loopAround(o *owner, r ast.Node, senders []*Goroutine) ast.Stmt {
	if rs, ok := r.(*ast.RangeStmt); ok {
		return rs
	}
	c, ok := a.ins.Root().FindByPos(r.Pos(), r.End())
	if !ok {
		return nil
	}
	for e := range c.Enclosing((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.FuncLit)(nil), (*ast.FuncDecl)(nil)) {
		switch n := e.Node().(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return nil
		case *ast.ForStmt, *ast.RangeStmt:
			// The range expression and the init statement run once,
			// before the loop: `for k, v := range <-done` is no drain.
			if rs, ok := n.(*ast.RangeStmt); ok && rs.X.Pos() <= r.Pos() && r.End() <= rs.X.End() {
				continue
			}
			if fs, ok := n.(*ast.ForStmt); ok && fs.Init != nil && fs.Init.Pos() <= r.Pos() && r.End() <= fs.Init.End() {
				continue
			}
			for _, g := range senders {
				if n.Pos() <= g.Start.Pos() && g.Start.Pos() < n.End() {
					return nil
				}
			}
			return n.(ast.Stmt)
		}
	}
	return nil
}

// orphanWalk searches the owner's control flow for a return with sends
// still pending: more started than received, beyond the buffer.
type orphanWalk struct {
	a      *analysis
	o      *owner
	u      *chanUse
	many   bool
	k      int
	limit  int
	starts map[ast.Node]int  // CFG node -> senders it starts
	drains map[ast.Stmt]bool // loops that drain the channel
	// outcome holds the other channels the senders signal on.
	outcome map[types.Object]bool
	selects map[*ast.CommClause]*ast.SelectStmt // memo of selectOf
}

type walkState struct {
	b       *cfg.Block
	pending int
	drain   ast.Stmt // drain loop left early when set
	via     *ast.CommClause
}

type walkKey struct {
	b       int32
	pending int
	drain   ast.Stmt
}

func (w *orphanWalk) run() (ast.Node, token.Pos, *ast.CommClause) {
	seen := map[walkKey]bool{}
	stack := []walkState{{b: w.o.graph.CFG.Blocks[0]}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := walkKey{s.b.Index, s.pending, s.drain}
		if seen[k] {
			continue
		}
		seen[k] = true
		w.enter(&s)
		for _, n := range s.b.Nodes {
			if c := w.starts[n]; c > 0 {
				s.pending = min(s.pending+c, w.limit)
			}
			if !w.o.comms[n] {
				for range w.receives(n) {
					w.received(&s, nil)
				}
			}
		}
		if e, ok := w.o.graph.IsExit(s.b); ok {
			if s.pending > w.k || (w.many && s.drain != nil) {
				var exit ast.Node
				if e.Return != nil {
					exit = e.Return
				}
				return exit, e.Pos(w.o.fn.Body), s.via
			}
			continue
		}
		for _, succ := range s.b.Succs {
			ns := s
			ns.b = succ
			if s.drain != nil && isLoopHead(s.b, s.drain) && isLoopDone(succ, s.drain) {
				ns.drain = nil
			}
			stack = append(stack, ns)
		}
	}
	return nil, token.NoPos, nil
}

// enter applies the events of entering block s.b.
func (w *orphanWalk) enter(s *walkState) {
	b := s.b
	switch b.Kind {
	case cfg.KindSelectCaseBody:
		clause := b.Stmt.(*ast.CommClause)
		if r := commRecv(clause.Comm); r != nil && (w.isChan(r.X) || w.outcome[rootObj(w.a.info, r.X)]) {
			w.received(s, r)
			return
		}
		if sel := w.selectOf(clause); sel != nil && w.selectReceives(sel) {
			s.via = clause
			if w.many {
				if l := w.drainAround(clause); l != nil && isInfinite(l) {
					s.drain = l
				}
			}
		}
	case cfg.KindForLoop, cfg.KindRangeLoop, cfg.KindForBody:
		if b.Kind == cfg.KindForBody && !isInfinite(b.Stmt) {
			break // the head of a cond-less loop is its body block
		}
		if w.drains[b.Stmt] && w.many {
			s.pending = 0
			if isInfinite(b.Stmt) {
				s.drain = nil
			} else {
				s.drain = b.Stmt
			}
		}
		if rs, ok := b.Stmt.(*ast.RangeStmt); ok && w.isChan(rs.X) && !w.many {
			w.received(s, nil)
		}
	}
}

func (w *orphanWalk) received(s *walkState, _ *ast.UnaryExpr) {
	if w.many && w.drainAroundPending(s) {
		s.pending = 0
		return
	}
	s.pending = max(s.pending-1, 0)
}

// drainAroundPending reports whether the walk is inside a drain loop; such
// receives drain everything (the loop's exit is checked separately).
func (w *orphanWalk) drainAroundPending(s *walkState) bool {
	for l := range w.drains {
		if blockIn(s.b, l) {
			return true
		}
	}
	return false
}

func blockIn(b *cfg.Block, l ast.Stmt) bool {
	if len(b.Nodes) > 0 {
		return l.Pos() <= b.Nodes[0].Pos() && b.Nodes[0].End() <= l.End()
	}
	return b.Stmt != nil && l.Pos() <= b.Stmt.Pos() && b.Stmt.End() <= l.End()
}

func (w *orphanWalk) drainAround(n ast.Node) ast.Stmt {
	var best ast.Stmt
	for l := range w.drains {
		if l.Pos() <= n.Pos() && n.End() <= l.End() && (best == nil || best.Pos() < l.Pos()) {
			best = l
		}
	}
	return best
}

func (w *orphanWalk) selectOf(clause *ast.CommClause) *ast.SelectStmt {
	if sel, ok := w.selects[clause]; ok {
		return sel
	}
	var sel *ast.SelectStmt
	if c, ok := w.a.cursor(clause); ok {
		sel, _ = c.Parent().Parent().Node().(*ast.SelectStmt)
	}
	w.selects[clause] = sel
	return sel
}

func (w *orphanWalk) selectReceives(sel *ast.SelectStmt) bool {
	for _, cc := range sel.Body.List {
		if comm := cc.(*ast.CommClause).Comm; comm != nil {
			if r := commRecv(comm); r != nil && w.isChan(r.X) {
				return true
			}
		}
	}
	return false
}

func (w *orphanWalk) isChan(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && w.a.info.Uses[id] == w.u.v
}

// receives returns how many receives from the channel the node n makes
// each time it runs: `r1, r2 := <-ch, <-ch` makes two. A receive on the
// right of && or || may not run, and is not counted.
func (w *orphanWalk) receives(n ast.Node) int {
	count := 0
	inspectNode(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.BinaryExpr:
			if m.Op == token.LAND || m.Op == token.LOR {
				count += w.receives(m.X)
				return false
			}
		case *ast.UnaryExpr:
			if m.Op == token.ARROW && w.isChan(m.X) {
				count++
			}
		}
		return true
	})
	return count
}

func isInfinite(l ast.Stmt) bool {
	f, ok := l.(*ast.ForStmt)
	return ok && f.Cond == nil
}

// isLoopHead reports whether b is the head of loop l: the condition block,
// or the body block of a loop without condition.
func isLoopHead(b *cfg.Block, l ast.Stmt) bool {
	switch b.Kind {
	case cfg.KindForLoop, cfg.KindRangeLoop:
		return b.Stmt == l
	case cfg.KindForBody:
		return b.Stmt == l && isInfinite(l)
	}
	return false
}

func isLoopDone(b *cfg.Block, l ast.Stmt) bool {
	return (b.Kind == cfg.KindForDone || b.Kind == cfg.KindRangeDone) && b.Stmt == l
}
