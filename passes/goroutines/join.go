package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/inspector"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// classify fills in g's join evidence, bound-ness, owner-state uses and,
// when it verifiably outlives its owner, Unjoined.
func (a *analysis) classify(g *Goroutine) {
	o := a.owners[g.Owner.Node]
	if o == nil {
		return
	}
	inLit := func(obj types.Object) bool {
		return g.Lit != nil && g.Lit.Pos() <= obj.Pos() && obj.Pos() < g.Lit.End()
	}
	outside := func(obj types.Object) bool { return !inLit(obj) }

	// Join evidence: WaitGroups it calls Done on, channels it sends on or
	// closes, directly or through a helper (JoinsParam).
	roots := map[types.Object]bool{}
	addRoot := func(e ast.Expr) {
		if obj := rootObj(a.info, e); obj != nil && outside(obj) {
			roots[obj] = true
		}
	}
	var body ast.Node
	switch {
	case g.Lit != nil:
		body = g.Lit.Body
		if _, ok := g.Start.(*ast.GoStmt); ok {
			for _, arg := range g.Start.(*ast.GoStmt).Call.Args {
				addRoot(arg) // go func(wg *sync.WaitGroup) {...}(&wg): checked below by use
			}
		}
	case g.Callee != nil:
		call := g.Start.(*ast.GoStmt).Call
		for _, i := range a.signals(call) {
			addRoot(call.Args[i])
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && isWaitGroupDone(a.info, call) {
			addRoot(sel.X)
		}
		// A method that reports on a field (`s.results <- r` in
		// `go s.work()`) signals what a literal doing the same would.
		for f := range a.fieldSignals(g.Callee) {
			roots[f] = true
		}
	}
	if body != nil {
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SendStmt:
				addRoot(n.Chan)
			case *ast.CallExpr:
				if isWaitGroupDone(a.info, n) {
					addRoot(n.Fun.(*ast.SelectorExpr).X)
				}
				if a.isBuiltin(n, "close") && len(n.Args) == 1 {
					addRoot(n.Args[0])
				}
				for _, i := range a.signals(n) {
					addRoot(n.Args[i])
				}
				// p.running.leave(), s.report(err): a helper of the
				// package that signals through a field.
				for f := range a.fieldSignals(analysisutil.Callee(a.info, n)) {
					roots[f] = true
				}
			}
			return true
		})
	}
	if g.Lit != nil {
		g.AddInside, g.AddCountsSelf = a.addInside(g.Lit, outside)
	}
	g.SkipsDone = a.skippedDone(g, outside)
	local := map[types.Object]bool{}
	fieldRoots := map[types.Object]bool{}
	for obj := range roots {
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			fieldRoots[obj] = true
		}
	}
	for obj := range roots {
		switch {
		case !a.declaredIn(obj, o.fn) || isParamOf(obj, o.fn) || a.borrowedWaitGroup(obj, o.fn):
			g.Join = "signals " + obj.Name() + " of another owner"
		case a.delegated(o, g, obj):
			g.Join = "waited for by a closure or goroutine of the owner"
		default:
			local[obj] = true
		}
	}

	// Bound: worker loops and watchers.
	switch {
	case g.Lit != nil:
		g.Bound = a.isBound(g.Lit.Body, outside, func(x ast.Expr) bool { return a.perCallChan(o, g, x) })
	case g.Callee != nil:
		g.Bound = a.boundCallee(g.Callee)
	}

	g.Uses = a.ownerUses(g, o, inLit)

	if g.Orphaned {
		return
	}
	if g.Join != "" {
		if len(fieldRoots) > 0 && len(fieldRoots) == len(roots) {
			// It reports only on fields (s.status <- st): when its type
			// counts its goroutines in a WaitGroup and the shutdown that
			// waits on it receives none of those reports, the reports
			// join nothing and the goroutine escapes the shutdown.
			if u := a.untrackedBeside(o, g); u != nil && !a.receivesAny(u.Wait, fieldRoots) {
				g.Untracked = u
				return
			}
		}
		// A goroutine with no way out signals nobody in the end: its
		// deferred Done never runs, its reports on a field do not end it.
		g.Endless = a.endless(o, g)
		return
	}

	exempt := a.isMain(o.fn) || a.longLived(o.fn, g)
	var reasons []Use
	loopRule := false
	for _, u := range g.Uses {
		switch u.Kind {
		case UseResponse, UseRequest:
			reasons = append(reasons, u)
		case UseWrite:
			// Tests synchronise in ways we cannot see (synctest.Wait,
			// gates); their writes are not reported.
			if !a.isMain(o.fn) && !a.inTestFile(g.Start.Pos()) {
				reasons = append(reasons, u)
			}
		case UseContext:
			// Goroutines started by an accept or dispatch loop (`for {}`,
			// a range over a channel) serve the owner's lifetime context;
			// not when the owner is a function run by a group that its
			// caller waits for (g.Go(func() error { for { ... go
			// s.dispatch(ctx, n) } })): the Wait stands for all the work,
			// and this goroutine escapes it.
			if !g.Bound && !exempt && (!isDispatchLoop(a.info, g.Loop) || a.groupMember(o)) {
				reasons = append(reasons, u)
			}
		}
	}
	// A WaitGroup of the owner that the goroutine reports to: the owner
	// means to wait, so a path that skips the Wait is a finding whatever
	// the goroutine touches.
	for obj := range local {
		if isWaitGroup(obj.Type()) {
			reasons = append(reasons, Use{Kind: UseWaitGroup, Obj: obj, Pos: obj.Pos()})
			break
		}
	}
	if len(reasons) == 0 && isCollectionLoop(a.info, g.Loop) && !g.Bound && !exempt &&
		(g.Lit != nil || g.Callee != nil) && !a.inTestFile(g.Start.Pos()) && a.goesRound(o, g) {
		loopRule = true
	}
	if len(reasons) == 0 && !loopRule {
		// Nothing of the owner's is at stake; but a goroutine of a method
		// that its type's WaitGroup does not count, when the type counts
		// its other goroutines there, escapes the shutdown.
		// A goroutine that never ends is reported as that, whatever
		// counts it.
		g.Endless = a.endless(o, g)
		if g.Endless == nil {
			g.Untracked = a.untrackedBeside(o, g)
		}
		if g.Untracked == nil && g.Endless == nil {
			g.Stranded = a.stranded(o, g)
		}
		return
	}
	g.Uses = reasons
	if x := a.groupOf(o); x != nil {
		g.Group = x
	}

	// Control flow: can the owner return, from the start, without a join
	// event?
	if a.deferredJoin(o, local) {
		g.Join = "deferred join"
		return
	}
	// A path on which the owner sees its context end (a Done arm) gives up
	// on the goroutine on purpose when the goroutine uses that context (it
	// is being canceled), or when it reports back on a channel of the owner
	// (a racer: its result is not wanted any more).
	ctxWatch := false
	for _, u := range reasons {
		ctxWatch = ctxWatch || u.Kind == UseContext
	}
	reportsBack := false
	for obj := range local {
		if _, isChan := obj.Type().Underlying().(*types.Chan); isChan {
			reportsBack = true
		}
	}
	ctxWatch = ctxWatch || reportsBack
	event := func(n ast.Node) bool {
		found := false
		inspectNode(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.GoStmt:
				return false // another goroutine's start, or this one's
			case *ast.Ident:
				if obj := a.info.Uses[m]; obj != nil && local[obj] && !a.isAddOperand(n, m) {
					found = true
				}
			case *ast.UnaryExpr:
				if ctxWatch && a.isDoneRecv(m) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	if reportsBack && a.resultOnly(o, g, reasons, local) && a.future(g, local) {
		// A future: its one result goes into a buffer with room for it,
		// and sending it is the last thing it does. An owner that stops
		// waiting abandons the result on purpose; the goroutine ends once
		// the work that makes the result does, sooner when the context it
		// uses is canceled, and nothing is left blocked.
		g.Join = "buffered result channel"
		return
	}
	if reportsBack && len(reasons) == 0 {
		// A goroutine per element that touches no owner state and reports
		// on a channel the owner receives from somewhere: the owner
		// collects them, possibly under a timeout of its own
		// (httptest.Server.CloseClientConnections); paths that give up are
		// orphansend's business when the send blocks.
		for obj := range local {
			if _, isChan := obj.Type().Underlying().(*types.Chan); isChan && event(o.fn.Body) {
				g.Join = "result channel " + obj.Name()
				return
			}
		}
	}
	p, ok := o.graph.Locate(g.Start)
	if !ok {
		return
	}
	edges := bothEdges(a.sameCollection(g), flow.SetFlags(a.info, o.fn.Body, g.Start))
	if exit, ok := o.graph.ExitAvoidingEdges(p.Next(), event, edges); ok {
		if exit.Return != nil {
			g.Unjoined = exit.Return
		}
		g.UnjoinedPos = exit.Pos(o.fn.Body)
		if len(local) > 0 {
			g.Join = ""
		}
	} else if len(local) > 0 {
		g.Join = JoinedOnEveryPath
	}
}

// resultOnly reports whether the owner state a goroutine uses is its
// context and variables it writes as part of the result it reports on the
// owner's channels (syncedWrite).
func (a *analysis) resultOnly(o *owner, g *Goroutine, uses []Use, local map[types.Object]bool) bool {
	for _, u := range uses {
		switch {
		case u.Kind == UseContext:
		case u.Kind == UseWrite && a.syncedWrite(o, g, u.Obj, local):
		default:
			return false
		}
	}
	return len(uses) > 0
}

// future reports whether g computes a result for its owner: it reports
// back only on roomy result channels of its owner, sends on every path,
// and its sends are its last action (after each, no call, send or other
// communication runs before it ends). A goroutine that reports only on
// some paths (its failure) does work for its side effects, and its owner
// should wait for that work.
func (a *analysis) future(g *Goroutine, local map[types.Object]bool) bool {
	if g.Lit == nil {
		return false
	}
	for obj := range local {
		v, ok := obj.(*types.Var)
		if !ok || !a.roomy[v] {
			return false
		}
	}
	graph := a.bodyGraph(g)
	if graph == nil {
		return false
	}
	sends := func(n ast.Node) bool {
		s, ok := n.(*ast.SendStmt)
		return ok && local[rootObj(a.info, s.Chan)]
	}
	if !graph.OnEveryPath(graph.Entry(), sends) {
		return false
	}
	tail := true
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		send, ok := n.(*ast.SendStmt)
		if !ok || !tail {
			return tail
		}
		if obj := rootObj(a.info, send.Chan); obj == nil || !local[obj] {
			return true
		}
		p, ok := graph.Locate(send)
		if !ok {
			tail = false
			return false
		}
		work := func(m ast.Node) bool {
			return flow.Mentions(m, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.CallExpr:
					return true
				case *ast.SendStmt:
					// Another report into one of the owner's roomy
					// channels (errCh <- err; resCh <- v) is the same
					// last word, not more work.
					return !local[rootObj(a.info, x.Chan)]
				case *ast.UnaryExpr:
					return x.Op == token.ARROW
				}
				return false
			})
		}
		if _, more := graph.Reaches(p.Next(), work, nil); more {
			tail = false
		}
		return true
	})
	return tail
}

// goesRound reports whether the loop that started g can go round again
// after the go statement: one that every path leaves right after the start
// (`go notify(x); return`) starts one goroutine, not one per element.
func (a *analysis) goesRound(o *owner, g *Goroutine) bool {
	p, ok := o.graph.Locate(g.Start)
	if !ok {
		return true
	}
	head := o.graph.LoopHead(g.Loop)
	if head == nil {
		return true
	}
	return o.graph.ReachesBlock(p.Next(), head)
}

// bothEdges returns the edge filter that admits the edges both filters
// admit (a nil filter admits every edge).
func bothEdges(f, g func(*cfg.Block, int) bool) func(*cfg.Block, int) bool {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(b *cfg.Block, i int) bool { return f(b, i) && g(b, i) }
}

// sameCollection returns the edge filter of the owner's graph under which a
// loop over the same rounds as the loop that started g runs at least once:
// the goroutine started, so the collection is not empty (or the count not
// zero), and a loop that collects from each element (`for range ids {
// <-errc }`, `for i := 0; i < n; i++ { <-results }`) cannot end before its
// first round. Nil when g's loop has no rounds visible in its header.
func (a *analysis) sameCollection(g *Goroutine) func(*cfg.Block, int) bool {
	if g.Loop == nil {
		return nil
	}
	count, ok := a.roundCount(g.Loop)
	if !ok {
		return nil
	}
	if r, ok := g.Loop.(*ast.RangeStmt); ok && rootObj(a.info, r.X) == nil {
		return nil
	}
	return func(b *cfg.Block, i int) bool {
		switch other := b.Stmt.(type) {
		case *ast.RangeStmt:
			if b.Kind != cfg.KindRangeLoop || other == g.Loop || b.Succs[i].Kind != cfg.KindRangeDone {
				return true
			}
			c, ok := a.roundCount(other)
			return !ok || c != count
		case *ast.ForStmt:
			if b.Kind != cfg.KindForLoop || other == g.Loop || b.Succs[i].Kind != cfg.KindForDone {
				return true
			}
			c, ok := a.roundCount(other)
			return !ok || c != count
		}
		return true
	}
}

// delegated reports whether the owner hands the waiting on obj to a
// closure or another goroutine: obj is used, other than by Add or Done,
// inside a function literal of the owner other than g's (a returned stop
// function that waits, a closer goroutine `go func() { wg.Wait();
// close(ch) }()`).
func (a *analysis) delegated(o *owner, g *Goroutine, obj types.Object) bool {
	found := false
	var lits []*ast.FuncLit
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if g.Lit != nil && n == ast.Node(g.Lit) {
			return false
		}
		if lit, ok := n.(*ast.FuncLit); ok {
			lits = append(lits, lit)
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if found || n == nil {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok && (isWaitGroupAdd(a.info, call) || isWaitGroupDone(a.info, call)) {
				return false
			}
			if id, ok := n.(*ast.Ident); ok && a.info.Uses[id] == obj {
				found = true
			}
			return true
		})
	}
	return found
}

// addInside returns a WaitGroup.Add call of lit's own body (not of a
// nested literal) on a WaitGroup from outside on which the body itself also
// calls Done: the goroutine counts itself, racing with Wait.
func (a *analysis) addInside(lit *ast.FuncLit, outside func(types.Object) bool) (*ast.CallExpr, bool) {
	var add *ast.CallExpr
	var added types.Object // the group add counts in
	done := map[types.Object]bool{}
	inspectNode(lit.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			sel, _ := call.Fun.(*ast.SelectorExpr)
			switch {
			case sel == nil:
			case isWaitGroupDone(a.info, call):
				done[rootObj(a.info, sel.X)] = true
			case isWaitGroupAdd(a.info, call) && add == nil:
				if obj := rootObj(a.info, sel.X); obj != nil && outside(obj) {
					add, added = call, obj
				}
			default:
				// p.running.enter() / defer p.running.leave(): helpers of
				// the package that Add to or signal a WaitGroup field.
				fn := analysisutil.Callee(a.info, call)
				if fn == nil || fn.Pkg() != a.pass.Pkg {
					break
				}
				s := a.summaryOf(fn)
				if s == nil {
					break
				}
				for f := range s.fields {
					done[f] = true
				}
				if add == nil && len(s.adds) == 1 {
					for f, base := range s.adds {
						if b := baseVar(a.info, callBase(call, base)); b != nil && outside(b) {
							add, added = call, f
						}
					}
				}
			}
		}
		return true
	})
	if add == nil {
		return nil, false
	}
	// The goroutine counts itself when it calls Done on the same group,
	// or when the Add is its very first statement (vet's waitgroup rule):
	// either way Wait can run before the Add does.
	first := len(lit.Body.List) > 0 && isStmtOf(lit.Body.List[0], add)
	self := done[added]
	if !first && !self || !self && !isWaitGroupAdd(a.info, add) {
		return nil, false // a helper's Add counts only with its own Done
	}
	// An Add followed by a nested go statement counts that goroutine, and
	// so does one followed by a function literal handed to a call (a
	// spawner: srv.startGoRoutine(func() { defer wg.Done(); ... })).
	nested := false
	inspectNode(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			nested = nested || n.Pos() > add.Pos()
		case *ast.CallExpr:
			for _, arg := range n.Args {
				if _, isLit := ast.Unparen(arg).(*ast.FuncLit); isLit && n.Pos() > add.Pos() {
					nested = true
				}
			}
		}
		return !nested
	})
	if nested {
		return nil, false
	}
	return add, self
}

// isStmtOf reports whether s is the expression statement call.
func isStmtOf(s ast.Stmt, call *ast.CallExpr) bool {
	es, ok := s.(*ast.ExprStmt)
	return ok && ast.Unparen(es.X) == call
}

// isAddOperand reports whether id is the receiver of a WaitGroup.Add call
// in n: counting is not waiting.
func (a *analysis) isAddOperand(n ast.Node, id *ast.Ident) bool {
	found := false
	inspectNode(n, func(m ast.Node) bool {
		if call, ok := m.(*ast.CallExpr); ok && isWaitGroupAdd(a.info, call) {
			if call.Fun.(*ast.SelectorExpr).X.Pos() <= id.Pos() && id.End() <= call.Fun.End() {
				found = true
			}
		}
		return !found
	})
	return found
}

// deferredJoin reports whether the owner defers a use of a join root
// (defer wg.Wait(), defer func() { <-done }()).
func (a *analysis) deferredJoin(o *owner, local map[types.Object]bool) bool {
	found := false
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok {
			ast.Inspect(d, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && local[a.info.Uses[id]] {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// ownerUses lists the owner state g uses.
func (a *analysis) ownerUses(g *Goroutine, o *owner, inLit func(types.Object) bool) []Use {
	var uses []Use
	seen := map[types.Object]bool{}
	add := func(k UseKind, obj types.Object, pos token.Pos) {
		if !seen[obj] {
			seen[obj] = true
			uses = append(uses, Use{Kind: k, Obj: obj, Pos: pos})
		}
	}
	var nodes []ast.Node
	if g.Lit != nil {
		nodes = append(nodes, g.Lit.Body)
	}
	if gs, ok := g.Start.(*ast.GoStmt); ok {
		for _, arg := range gs.Call.Args {
			nodes = append(nodes, arg)
		}
		if sel, ok := gs.Call.Fun.(*ast.SelectorExpr); ok && g.Lit == nil {
			nodes = append(nodes, sel.X)
		}
	}
	for _, root := range nodes {
		cur, ok := a.cursor(root)
		if !ok {
			continue
		}
		for c := range cur.Preorder((*ast.Ident)(nil)) {
			id := c.Node().(*ast.Ident)
			obj := a.info.Uses[id]
			if obj == nil || inLit(obj) {
				continue
			}
			switch {
			case obj == o.w:
				add(UseResponse, obj, id.Pos())
			case obj == o.r:
				if !a.watchOnly(c) {
					add(UseRequest, obj, id.Pos())
				}
			case o.ctxs[obj]:
				if !a.watchOnly(c) && !o.canceled[obj] && !o.stored[obj] && !a.detachedBefore(o, g, obj) && !a.inWithoutCancel(c) {
					add(UseContext, obj, id.Pos())
				}
			case g.Lit != nil && a.isWrite(c) && a.declaredIn(obj, o.fn) && a.readAfter(o, g, obj):
				add(UseWrite, obj, id.Pos())
			}
		}
	}
	// Most telling first.
	out := uses[:0:0]
	for _, k := range []UseKind{UseResponse, UseRequest, UseWrite, UseContext} {
		for _, u := range uses {
			if u.Kind == k {
				out = append(out, u)
			}
		}
	}
	return out
}

// readAfter reports whether the owner reads obj, outside the goroutine,
// on some path after starting it (a later statement, the next round of the
// loop that starts it, a closure called or deferred there), or obj is a
// named result, so that what the goroutine writes is meant for the owner.
// A variable the owner hands over and never touches again is the
// goroutine's own; one that only other goroutines the owner starts read
// (`stopped` set by a stopper goroutine and read by a worker, under a
// lock) is state they share, not a result for the owner.
func (a *analysis) readAfter(o *owner, g *Goroutine, obj types.Object) bool {
	if a.namedResult(o, obj) {
		return true
	}
	p, ok := o.graph.Locate(g.Start)
	if !ok {
		return true
	}
	gos := map[*ast.FuncLit]bool{}
	for _, h := range o.gos {
		if h.Lit != nil {
			if _, isGo := h.Start.(*ast.GoStmt); isGo {
				gos[h.Lit] = true
			}
		}
	}
	_, ok = o.graph.Reaches(p.Next(), func(n ast.Node) bool { return a.readsVarIn(n, obj, func(l *ast.FuncLit) bool { return gos[l] }) }, nil)
	return ok
}

// namedResult reports whether obj is a named result of the owner.
func (a *analysis) namedResult(o *owner, obj types.Object) bool {
	res := o.fn.Sig.Results()
	for i := range res.Len() {
		if res.At(i) == obj {
			return true
		}
	}
	return false
}

// readsVar reports whether n reads obj: a use that is not the target of
// an assignment, also inside function literals other than skip.
func (a *analysis) readsVar(n ast.Node, obj types.Object, skip *ast.FuncLit) bool {
	return a.readsVarIn(n, obj, func(l *ast.FuncLit) bool { return l == skip })
}

// readsVarIn is readsVar skipping the literals for which skip holds.
func (a *analysis) readsVarIn(n ast.Node, obj types.Object, skip func(*ast.FuncLit) bool) bool {
	found := false
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		if found || n == nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if skip(n) {
				return false
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && n.Tok != token.DEFINE && a.info.Uses[id] == obj {
					continue // written, not read (x += 1 reads, but races the same way)
				}
				ast.Inspect(l, visit)
			}
			for _, r := range n.Rhs {
				ast.Inspect(r, visit)
			}
			return false
		case *ast.Ident:
			if a.info.Uses[n] == obj {
				found = true
			}
		}
		return !found
	}
	ast.Inspect(n, visit)
	return found
}

// syncedWrite reports whether the goroutine's writes to obj reach the
// owner only through its report on chans: the goroutine writes obj before
// each send on them (no write follows a send), and every read of obj by
// the owner after the start comes after a receive from one of them. Such
// a write is part of the result the goroutine reports, not a race.
func (a *analysis) syncedWrite(o *owner, g *Goroutine, obj types.Object, chans map[types.Object]bool) bool {
	if g.Lit == nil || a.namedResult(o, obj) {
		return false
	}
	receives := func(n ast.Node) bool {
		return flow.Mentions(n, func(m ast.Node) bool {
			u, ok := m.(*ast.UnaryExpr)
			return ok && u.Op == token.ARROW && chans[rootObj(a.info, u.X)]
		})
	}
	p, ok := o.graph.Locate(g.Start)
	if !ok {
		return false
	}
	if _, unsynced := o.graph.Reaches(p.Next(), func(n ast.Node) bool { return a.readsVar(n, obj, g.Lit) }, receives); unsynced {
		return false
	}
	body := a.bodyGraph(g)
	if body == nil {
		return false
	}
	writes := func(n ast.Node) bool {
		return flow.Mentions(n, func(m ast.Node) bool {
			as, ok := m.(*ast.AssignStmt)
			if !ok {
				return false
			}
			for _, l := range as.Lhs {
				if rootObj(a.info, l) == obj {
					return true
				}
			}
			return false
		})
	}
	late := false
	ast.Inspect(g.Lit.Body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit || late {
			return false
		}
		send, ok := n.(*ast.SendStmt)
		if !ok || !chans[rootObj(a.info, send.Chan)] {
			return true
		}
		sp, ok := body.Locate(send)
		if !ok {
			late = true
			return false
		}
		if _, after := body.Reaches(sp.Next(), writes, nil); after {
			late = true
		}
		return true
	})
	return !late
}

// watchOnly reports whether the context or request at c is only watched:
// ctx.Done(), ctx.Err(), r.Context().Done(), r.Context().Err().
func (a *analysis) watchOnly(c inspector.Cursor) bool {
	p := c.Parent()
	sel, ok := p.Node().(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if sel.Sel.Name == "Context" {
		call, ok := p.Parent().Node().(*ast.CallExpr)
		if !ok {
			return false
		}
		outer, ok := p.Parent().Parent().Node().(*ast.SelectorExpr)
		if !ok || outer.X != call {
			return false
		}
		sel = outer
	}
	fn, _ := a.info.Uses[sel.Sel].(*types.Func)
	return analysisutil.IsMethod(fn, "context", "Context", "Done") || analysisutil.IsMethod(fn, "context", "Context", "Err")
}

// isWrite reports whether the identifier at c is the base of an assignment
// target: x = ..., x[i] = ..., x.f = ..., x++.
func (a *analysis) isWrite(c inspector.Cursor) bool {
	child := c.Node()
	for p := c.Parent(); p.Valid(); p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.IndexExpr:
			if n.X != child {
				return false
			}
		case *ast.SelectorExpr:
			if n.X != child {
				return false
			}
			if _, isStruct := a.info.TypeOf(n.X).Underlying().(*types.Struct); !isStruct {
				return false // through a pointer: not the owner's variable
			}
		case *ast.ParenExpr:
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				return false
			}
			for _, l := range n.Lhs {
				if l == child {
					return true
				}
			}
			return false
		case *ast.IncDecStmt:
			return n.X == child
		default:
			return false
		}
		child = p.Node()
	}
	return false
}

// declaredIn reports whether obj is a variable declared in f (parameters,
// results and locals), outside any goroutine.
func (a *analysis) declaredIn(obj types.Object, f *ctxflow.Func) bool {
	v, ok := obj.(*types.Var)
	if !ok || v.IsField() {
		return false
	}
	return f.Node.Pos() <= obj.Pos() && obj.Pos() < f.Node.End()
}

// borrowedWaitGroup reports whether obj is a local *sync.WaitGroup whose
// value the owner got from a call (wg := group(config), the caller's
// WaitGroup handed over in its configuration): whoever made it waits on
// it, as for a parameter.
func (a *analysis) borrowedWaitGroup(obj types.Object, f *ctxflow.Func) bool {
	p, ok := obj.Type().(*types.Pointer)
	if !ok || !isWaitGroup(p.Elem()) {
		return false
	}
	borrowed := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || borrowed {
			return !borrowed
		}
		for i, l := range as.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || a.info.ObjectOf(id) != obj {
				continue
			}
			if len(as.Lhs) != len(as.Rhs) {
				borrowed = true // a result of a tuple-valued call
				continue
			}
			if call, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr); ok && !a.isBuiltin(call, "new") {
				borrowed = true
			}
		}
		return !borrowed
	})
	return borrowed
}

func isParamOf(obj types.Object, f *ctxflow.Func) bool {
	if f.Sig.Recv() == obj {
		return true
	}
	params := f.Sig.Params()
	for i := range params.Len() {
		if params.At(i) == obj {
			return true
		}
	}
	return false
}

func isWaitGroup(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return analysisutil.IsNamed(t, "sync", "WaitGroup")
}

func isWaitGroupAdd(info *types.Info, call *ast.CallExpr) bool {
	_, ok := call.Fun.(*ast.SelectorExpr)
	return ok && analysisutil.IsMethod(analysisutil.Callee(info, call), "sync", "WaitGroup", "Add")
}

// isCollectionLoop reports whether l walks a finite collection: a range
// over a slice, array, map, string or integer, or a counted for loop.
func isCollectionLoop(info *types.Info, l ast.Stmt) bool {
	switch l := l.(type) {
	case *ast.RangeStmt:
		t := info.TypeOf(l.X)
		if t == nil {
			return false
		}
		switch t.Underlying().(type) {
		case *types.Chan, *types.Signature:
			return false
		}
		return true
	case *ast.ForStmt:
		return l.Init != nil && l.Cond != nil && l.Post != nil
	}
	return false
}

// inTestFile reports whether pos is in a _test.go file, where goroutines
// per element are mostly deliberate stress.
func (a *analysis) inTestFile(pos token.Pos) bool {
	return strings.HasSuffix(a.pass.Fset.File(pos).Name(), "_test.go")
}

// groupOf returns the group (the receiver of its Go, as written) that
// runs the owner o, a function literal, when a function around o waits for
// it (g.Wait()), or nil.
func (a *analysis) groupOf(o *owner) ast.Expr {
	lit, ok := o.fn.Node.(*ast.FuncLit)
	if !ok {
		return nil
	}
	return a.waitedGroup(lit, o.fn.Parent)
}

// groupMember reports whether the owner o is a function literal run by a
// group that a function around it waits for.
func (a *analysis) groupMember(o *owner) bool { return a.groupOf(o) != nil }

// waitedGroup returns the receiver of the group Go call (errgroup,
// sync.WaitGroup.Go and the other joiners) that lit is given to, when
// parent or a function around it calls Wait on that group; or nil.
func (a *analysis) waitedGroup(lit *ast.FuncLit, parent *ctxflow.Func) ast.Expr {
	c, ok := a.cursor(lit)
	if !ok || parent == nil {
		return nil
	}
	call, ok := c.Parent().Node().(*ast.CallExpr)
	if !ok || !slices.Contains(call.Args, ast.Expr(lit)) {
		return nil
	}
	fn := analysisutil.Callee(a.info, call)
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if fn == nil || !isGroupGo(fn) || !ok {
		return nil
	}
	grp := rootObj(a.info, sel.X)
	if grp == nil {
		return nil
	}
	for f := parent; f != nil; f = f.Parent {
		waits := false
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if w, ok := n.(*ast.CallExpr); ok {
				if ws, ok := ast.Unparen(w.Fun).(*ast.SelectorExpr); ok && ws.Sel.Name == "Wait" && rootObj(a.info, ws.X) == grp {
					waits = true
				}
			}
			return !waits
		})
		if waits {
			return sel.X
		}
	}
	return nil
}

// isDispatchLoop reports whether l is an accept or dispatch loop: `for {}`
// or a range over a channel.
func isDispatchLoop(info *types.Info, l ast.Stmt) bool {
	switch l := l.(type) {
	case *ast.ForStmt:
		return l.Cond == nil
	case *ast.RangeStmt:
		if t := info.TypeOf(l.X); t != nil {
			_, ok := t.Underlying().(*types.Chan)
			return ok
		}
	}
	return false
}

// isMain reports whether f is main.main or an init function: goroutines
// cannot outlive them in a way that matters.
func (a *analysis) isMain(f *ctxflow.Func) bool {
	return f.Obj != nil && a.flow.MainLike(f.Obj)
}

// longLived reports whether the goroutine belongs to a long-lived owner:
// the owner is a constructor of a type that can be closed or stopped, or
// the goroutine runs a method of such a type (go srv.Serve(l)).
func (a *analysis) longLived(f *ctxflow.Func, g *Goroutine) bool {
	if obj := f.Obj; obj != nil {
		// A method of a closable type is not exempt by itself: its
		// goroutines are tracked when they report to the owner's fields
		// (a WaitGroup Close waits for) or watch its stop channel.
		sig := obj.Type().(*types.Signature)
		for i := range sig.Results().Len() {
			if closable(sig.Results().At(i).Type()) {
				return true
			}
		}
	}
	if g.Callee != nil {
		// go srv.Serve(l): another object's lifecycle. A method of the
		// owner's own type is judged like the owner.
		if sig, ok := g.Callee.Type().(*types.Signature); ok && sig.Recv() != nil && closable(sig.Recv().Type()) &&
			(f.Sig.Recv() == nil || !types.Identical(deref(sig.Recv().Type()), deref(f.Sig.Recv().Type()))) {
			return true
		}
	}
	return false
}

// closable reports whether t (or *t) has a Close, Stop, Shutdown or Wait
// method: something that ends the goroutines it owns.
func closable(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return false
	}
	return methodNamed(t, closerNames, nil) != nil
}

// shutdownNames name the methods that end what a type runs; closerNames
// add Wait, which ends it by waiting.
var (
	shutdownNames = []string{"Close", "Stop", "Shutdown", "GracefulStop"}
	closerNames   = append(shutdownNames[:len(shutdownNames):len(shutdownNames)], "Wait")
)

// methodNamed returns the first method of t (or *t; an interface's own)
// with one of names, other than skip, or nil. The names are looked up
// rather than a method set built per goroutine site: the set of a large
// type is costly and only a few names matter.
func methodNamed(t types.Type, names []string, skip *types.Func) *types.Func {
	recv := types.Type(types.NewPointer(t))
	if types.IsInterface(t) {
		recv = t
	}
	for _, name := range names {
		obj, _, _ := types.LookupFieldOrMethod(recv, false, nil, name)
		if fn, ok := obj.(*types.Func); ok && fn != skip {
			return fn
		}
	}
	return nil
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// detachedBefore reports whether every path from the owner's entry to g's
// start passes an assignment of a detached context to obj (`ctx =
// context.WithoutCancel(ctx)`, `ctx = context.Background()`): the
// goroutine runs on a context the owner detached on purpose.
func (a *analysis) detachedBefore(o *owner, g *Goroutine, obj types.Object) bool {
	var detaching []ast.Node
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || a.info.ObjectOf(id) != obj {
				continue
			}
			var rhs ast.Expr
			switch {
			case len(as.Lhs) == len(as.Rhs):
				rhs = as.Rhs[i]
			case len(as.Rhs) == 1 && i == 0:
				// ctx, cancel := context.WithCancel(context.Background())
				if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok && len(call.Args) > 0 {
					if fn := analysisutil.Callee(a.info, call); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" {
						rhs = call.Args[0]
					}
				}
			}
			if rhs != nil && a.flow.Detached(rhs) {
				detaching = append(detaching, as)
			}
		}
		return true
	})
	if len(detaching) == 0 {
		return false
	}
	start, ok := o.graph.Locate(g.Start)
	if !ok {
		return false
	}
	isStart := func(n ast.Node) bool { return n == start.Node() }
	isDetach := func(n ast.Node) bool {
		for _, d := range detaching {
			if n == d {
				return true
			}
		}
		return false
	}
	_, reached := o.graph.Reaches(o.graph.Entry(), isStart, isDetach)
	return !reached
}

// inWithoutCancel reports whether the identifier at c is the argument of
// context.WithoutCancel: the goroutine is given a detached context.
func (a *analysis) inWithoutCancel(c inspector.Cursor) bool {
	call, ok := c.Parent().Node().(*ast.CallExpr)
	return ok && analysisutil.IsCallToFunc(a.info, call, "context", "WithoutCancel")
}
