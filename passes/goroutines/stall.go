package goroutines

import (
	"go/ast"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"golang.org/x/tools/go/cfg"
)

// stall records a Stall when o blocks receiving from u's channel, whose only
// sender can return on cancellation without sending or closing it.
func (a *analysis) stall(o *owner, u *chanUse) {
	if len(u.senders) != 1 || u.loopy || u.blockingRecv == nil || u.closedByOwner {
		return
	}
	g := u.senders[0]
	if g.Lit == nil || g.Loop != nil {
		return
	}
	lit := g.Lit
	isChan := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && a.info.Uses[id] == u.v
	}
	comms := map[ast.Node]bool{}
	signals := func(n ast.Node) bool {
		found := false
		inspectNode(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.SendStmt:
				found = found || isChan(m.Chan)
			case *ast.CallExpr:
				found = found || (a.isBuiltin(m, "close") && len(m.Args) == 1 && isChan(m.Args[0]))
			}
			return !found
		})
		return found
	}
	deferred := false
	inspectNode(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CommClause:
			if n.Comm != nil {
				comms[n.Comm] = true
			}
		case *ast.DeferStmt:
			// defer close(ch), defer func() { ch <- v }()
			ast.Inspect(n, func(m ast.Node) bool {
				if !deferred && m != nil {
					deferred = signals(m)
				}
				return !deferred
			})
		}
		return true
	})
	g2 := a.graphs.Func(lit)
	if deferred || g2 == nil {
		return
	}
	type state struct {
		b   *cfg.Block
		via ast.Node
	}
	seen := map[int32]bool{}
	stack := []state{{b: g2.CFG.Blocks[0]}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.via != nil {
			if seen[-1-s.b.Index] {
				continue
			}
			seen[-1-s.b.Index] = true
		} else {
			if seen[s.b.Index] {
				continue
			}
			seen[s.b.Index] = true
		}
		switch s.b.Kind {
		case cfg.KindSelectCaseBody:
			clause := s.b.Stmt.(*ast.CommClause)
			if send, ok := clause.Comm.(*ast.SendStmt); ok && isChan(send.Chan) {
				continue // sent
			}
			if a.isDoneRecv(commRecv(clause.Comm)) {
				s.via = clause
			}
		case cfg.KindIfThen:
			if ifs, ok := s.b.Stmt.(*ast.IfStmt); ok && a.observesCancel(ifs.Cond) {
				s.via = ifs
			}
		}
		done := false
		for _, n := range s.b.Nodes {
			if !comms[n] && signals(n) {
				done = true
				break
			}
		}
		if done {
			continue
		}
		if len(s.b.Succs) == 0 {
			if e, ok := g2.IsExit(s.b); s.via != nil && ok {
				st := &Stall{Chan: u.v, Recv: u.blockingRecv, Sender: g, Via: s.via}
				if e.Return != nil {
					st.Return = e.Return
				}
				a.res.Stalls = append(a.res.Stalls, st)
				g.Orphaned = true
				return
			}
			continue
		}
		for _, succ := range s.b.Succs {
			stack = append(stack, state{b: succ, via: s.via})
		}
	}
}

// observesCancel reports whether cond reads a context's Err or Done.
func (a *analysis) observesCancel(cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			fn := analysisutil.Callee(a.info, call)
			if analysisutil.IsMethod(fn, "context", "Context", "Err") || analysisutil.IsMethod(fn, "context", "Context", "Done") {
				found = true
			}
		}
		return !found
	})
	return found
}
