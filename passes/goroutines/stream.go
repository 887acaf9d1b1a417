package goroutines

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// Stream is a channel a function makes and returns, fed by one goroutine
// it starts with sends that wait for a receiver however long it takes,
// while the function has a context it could have watched:
//
//	func (r *Retrier) Attempts(ctx context.Context, max int) <-chan int {
//		ch := make(chan int)
//		go func() {
//			defer close(ch)
//			for i := range max {
//				ch <- i // blocks forever once the caller stops ranging
//				...
//
// A caller that stops receiving before the stream ends (it returned on its
// own ctx.Done(), or broke out of its range on the first good value)
// leaves the goroutine blocked on its next send for good. With a context in
// reach, the producer can select on ctx.Done() beside the send, and
// callers cancel the context when they stop.
type Stream struct {
	Make   *ast.CallExpr // make(chan T[, n])
	Chan   *types.Var
	Owner  *ctxflow.Func
	Ctx    string // the context in reach of the owner, as spelled there
	Sender *Goroutine
	Send   *ast.SendStmt   // the first bare send in a loop of the sender
	Return *ast.ReturnStmt // the return that hands the channel to the caller
}

// streams finds the streams of o: a channel variable o makes (once, from
// make), returns, and does nothing else with but close it, sent on by one
// goroutine literal of o with a send in a loop of that literal outside any
// select, when o has a context parameter or request in reach. A goroutine
// already reported (a future) is not one.
func (a *analysis) streams(o *owner) {
	var ctx string
	for _, c := range o.fn.Contexts {
		if c.Kind == ctxflow.ParamContext || c.Kind == ctxflow.RequestContext {
			ctx = c.Expr
			break
		}
	}
	if ctx == "" {
		return
	}
	made := map[*types.Var]*ast.CallExpr{}
	returned := map[*types.Var]*ast.ReturnStmt{}
	other := map[*types.Var]bool{}
	inspectNode(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, ok := ast.Unparen(l).(*ast.Ident)
				if !ok {
					continue
				}
				v, ok := a.info.ObjectOf(id).(*types.Var)
				if !ok {
					continue
				}
				if _, isChan := v.Type().Underlying().(*types.Chan); !isChan {
					continue
				}
				if len(n.Lhs) == len(n.Rhs) && made[v] == nil && a.isMake(n.Rhs[i]) {
					made[v] = ast.Unparen(n.Rhs[i]).(*ast.CallExpr)
				} else {
					other[v] = true // assigned twice, or from elsewhere
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if id, ok := ast.Unparen(r).(*ast.Ident); ok {
					if v, ok := a.info.Uses[id].(*types.Var); ok && returned[v] == nil {
						returned[v] = n
					}
				}
			}
		}
		return true
	})
	for v, mk := range made {
		ret := returned[v]
		if ret == nil || other[v] || !a.declaredIn(v, o.fn) {
			continue
		}
		var sender *Goroutine
		var send *ast.SendStmt
		var sends []*ast.SendStmt
		ok := true
		for _, g := range o.gos {
			if g.Lit == nil || !analysisutil.ReferencesObject(a.info, g.Lit, v) {
				continue
			}
			if sender != nil || g.Orphaned {
				ok = false // more than one producer, or one reported already
				break
			}
			sender = g
			send, sends, ok = a.loopSend(g.Lit, v)
		}
		if !ok || sender == nil || send == nil || a.usedByOwner(v, o) {
			continue
		}
		if k, ok := a.capacity(mk); ok && k >= 1 && sendsApart(a.bodyGraph(sender), sends) {
			// errc := make(chan error, 1); ... errc <- err; return: the
			// one value fits the buffer whether or not anyone reads it.
			continue
		}
		if a.roomForRange(mk, sender.Lit, sends) {
			continue
		}
		sender.Orphaned = true
		a.res.Streams = append(a.res.Streams, &Stream{Make: mk, Chan: v, Owner: o.fn, Ctx: ctx, Sender: sender, Send: send, Return: ret})
	}
}

// roomForRange reports whether the buffer of mk, make(chan T, len(xs)),
// holds every send of the stream: its only send is a statement directly in
// the body of a `range xs` loop of lit (xs the same access path, not
// assigned in lit), so the producer sends at most len(xs) values and never
// blocks, whoever stops receiving.
func (a *analysis) roomForRange(mk *ast.CallExpr, lit *ast.FuncLit, sends []*ast.SendStmt) bool {
	if len(mk.Args) != 2 || len(sends) != 1 {
		return false
	}
	n, ok := ast.Unparen(mk.Args[1]).(*ast.CallExpr)
	if !ok || !a.isBuiltin(n, "len") || len(n.Args) != 1 {
		return false
	}
	xs := n.Args[0]
	found := false
	ast.Inspect(lit.Body, func(m ast.Node) bool {
		rs, ok := m.(*ast.RangeStmt)
		if !ok || found {
			return !found
		}
		if analysisutil.SamePath(a.info, rs.X, xs) {
			for _, st := range rs.Body.List {
				if st == sends[0] {
					found = true
				}
			}
		}
		return !found
	})
	if !found {
		return false
	}
	root := rootObj(a.info, xs)
	assigned := false
	ast.Inspect(lit.Body, func(m ast.Node) bool {
		if as, ok := m.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if root != nil && rootObj(a.info, l) == root {
					assigned = true
				}
			}
		}
		return !assigned
	})
	return !assigned
}

// isMake reports whether e is make(chan T) or make(chan T, n).
func (a *analysis) isMake(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !a.isBuiltin(call, "make") || len(call.Args) == 0 {
		return false
	}
	_, isChan := a.info.TypeOf(call.Args[0]).Underlying().(*types.Chan)
	return isChan
}

// loopSend returns the first send on v in a loop of lit outside any select
// (nil if none) and all its sends on v, and false when lit uses v other than by sending on it and
// closing it, sends on it in a nested literal, or sends in a select (the
// producer watches something: not a blind stream).
func (a *analysis) loopSend(lit *ast.FuncLit, v *types.Var) (*ast.SendStmt, []*ast.SendStmt, bool) {
	cur, ok := a.cursor(lit.Body)
	if !ok {
		return nil, nil, false
	}
	var first *ast.SendStmt
	var all []*ast.SendStmt
	for c := range cur.Preorder((*ast.Ident)(nil)) {
		id := c.Node().(*ast.Ident)
		if a.info.Uses[id] != v {
			continue
		}
		switch p := c.Parent().Node().(type) {
		case *ast.SendStmt:
			if p.Chan != id {
				return nil, nil, false
			}
			inLoop := false
			for q := c.Parent().Parent(); q.Valid() && q.Node() != lit; q = q.Parent() {
				switch q.Node().(type) {
				case *ast.CommClause, *ast.FuncLit:
					return nil, nil, false
				case *ast.ForStmt, *ast.RangeStmt:
					inLoop = true
				}
			}
			if inLoop && first == nil {
				first = p
			}
			all = append(all, p)
		case *ast.CallExpr:
			if !a.isBuiltin(p, "close") {
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
	}
	return first, all, true
}

// usedByOwner reports whether o uses v other than where it makes it, in its
// returns, and in the goroutine literals it starts: a function literal
// that is not a goroutine (a callback receiving from v) is a use.
func (a *analysis) usedByOwner(v *types.Var, o *owner) bool {
	gos := map[*ast.FuncLit]bool{}
	for _, g := range o.gos {
		if g.Lit != nil {
			gos[g.Lit] = true
		}
	}
	used := false
	ast.Inspect(o.fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return !gos[n] && !used
		case *ast.ReturnStmt:
			return false // the hand-off
		case *ast.Ident:
			if a.info.Uses[n] == v {
				used = true
			}
		}
		return !used
	})
	return used
}
