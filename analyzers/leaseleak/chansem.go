package leaseleak

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkChanSemaphore looks at a send on a channel of empty structs that the
// same function also receives from as a bare statement (`sem <-
// struct{}{}` ... `<-sem`): a counting semaphore, acquired by the send and
// released by the receive. A return reached from the send without the
// receive (directly, deferred, or in a goroutine the function starts) and
// without handing the channel on keeps the slot for good: once every slot
// is lost, each later send blocks forever.
func (f *function) checkChanSemaphore(b *cfg.Block, i int, send *ast.SendStmt) {
	info := f.info()
	ch, ok := info.TypeOf(send.Chan).Underlying().(*types.Chan)
	if !ok {
		return
	}
	if st, ok := ch.Elem().Underlying().(*types.Struct); !ok || st.NumFields() != 0 {
		return
	}
	if f.localChan(send.Chan) {
		return // one that dies with the function: a lost slot is lost only until it returns
	}
	// An acquirer: a method whose success hands the slot to its caller,
	// released by another function of the package (Lock/Unlock as a
	// channel of capacity one). Its failure returns must not hold it.
	// Its own receives, if any, give the slot back only to report a
	// failure (`<-s.sem; return errRestarting`): it yields the slot
	// rather than releasing a use of it.
	acquirer := false
	errIdx := -1
	if fd, ok := f.cur.Node().(*ast.FuncDecl); ok {
		if sig, ok := info.Defs[fd.Name].Type().(*types.Signature); ok {
			errIdx = analysisutil.ErrorResult(sig)
		}
	}
	if local := f.receivesBare(f.body, send.Chan); !local || errIdx >= 0 && f.yieldsOnlyToFail(send.Chan, errIdx) {
		if errIdx < 0 || !f.s.fieldReceivedElsewhere(send.Chan, f.body) {
			if !local {
				return // not a semaphore here
			}
		} else {
			acquirer = true
		}
	}
	// A send that is a select's comm acquires only on its own case: the
	// other cases (a ctx.Done arm, a default) hold no slot.
	// (In the graph, the other cases' bodies are entered from the select's
	// head, and the way past the send's own case, towards the later cases
	// and the default, starts with its KindSelectAfterCase block.)
	var own *ast.CommClause
	if c, ok := f.cur.FindNode(send); ok {
		if cc, ok := c.Parent().Node().(*ast.CommClause); ok && cc.Comm == ast.Stmt(send) {
			own = cc
		}
	}
	counted := f.countedReleases(send.Chan)
	w := &walker{
		enters: func(b *cfg.Block) bool {
			if own == nil {
				return false
			}
			switch b.Kind {
			case cfg.KindSelectAfterCase:
				return b.Stmt == ast.Stmt(own)
			case cfg.KindSelectCaseBody:
				cc, ok := b.Stmt.(*ast.CommClause)
				return ok && cc != own && f.sameSelect(cc, own)
			}
			return false
		},
		stable: f.stableConds(),
		info:   info,
		start:  b,
		index:  i,
		acq:    send,
		disposes: func(n ast.Node) bool {
			if acquirer {
				// return nil: the caller holds the slot now.
				if ret, ok := n.(*ast.ReturnStmt); ok {
					return errIdx < len(ret.Results) && info.Types[ret.Results[errIdx]].IsNil()
				}
				return f.receivesBare(n, send.Chan)
			}
			return f.receivesBare(n, send.Chan) || f.handsOn(n, send.Chan) || counted[n]
		},
		assignsErr: func(ast.Node) bool { return false },
		failed:     func(ast.Expr, bool) bool { return false },
		released:   func(ast.Expr, bool) bool { return false },
		tagCases:   f.tagCases(),
	}
	out := w.search()
	if len(out.leaks) == 0 {
		return
	}
	name := types.ExprString(send.Chan)
	var related []analysis.RelatedInformation
	for _, ret := range out.leaks {
		related = append(related, analysis.RelatedInformation{Pos: ret.Pos(), End: ret.End(),
			Message: "this return is reached without <-" + name})
	}
	msg := fmt.Sprintf("the slot this send takes from the semaphore %s is not given back (<-%s) on the path through the return%s, so it is lost for good: once every slot is lost, each later send on %s blocks forever",
		name, name, f.condition(out.leaks[0]), name)
	if acquirer {
		msg = fmt.Sprintf("this send takes a slot of %s, and the return%s reports a failure while holding it: the caller, told the acquisition failed, never gives the slot back, and once every slot is lost each later send on %s blocks forever",
			name, f.condition(out.leaks[0]), name)
	}
	f.s.rep.Report(analysis.Diagnostic{
		Pos: send.Pos(), End: send.End(),
		Message: msg,
		Related: related,
	})
}

// countedReleases returns the ranged expressions of the loops that give
// back one slot of ch per element of a local slice the function appends to
// (`acquired = append(acquired, struct{}{})` after each send; `for range
// acquired { <-ch }`): passing such a loop releases what was counted, none
// when nothing was (the path that skips its body held no slot).
func (f *function) countedReleases(ch ast.Expr) map[ast.Node]bool {
	info := f.info()
	var out map[ast.Node]bool
	appended := make(map[types.Object]bool)
	ast.Inspect(f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		if analysisutil.IsBuiltin(info, call, "append") && len(call.Args) > 1 {
			if l, ok := ast.Unparen(as.Lhs[0]).(*ast.Ident); ok {
				appended[info.ObjectOf(l)] = true
			}
		}
		return true
	})
	if len(appended) == 0 {
		return nil
	}
	ast.Inspect(f.body, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok {
			return true
		}
		id, ok := ast.Unparen(rs.X).(*ast.Ident)
		if !ok || !appended[info.ObjectOf(id)] || !f.receivesBare(rs.Body, ch) {
			return true
		}
		if out == nil {
			out = make(map[ast.Node]bool)
		}
		out[rs.X] = true
		return true
	})
	return out
}

// yieldsOnlyToFail reports whether every bare receive from ch in the
// function (outside literals) is followed at once, in its statement list,
// by a return of a non-nil error in result errIdx: the function gives the
// slot back only on its way to reporting a failure.
func (f *function) yieldsOnlyToFail(ch ast.Expr, errIdx int) bool {
	info := f.info()
	ok := true
	ast.Inspect(f.body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		list := analysisutil.StmtList(n)
		for i, st := range list {
			if _, isStmt := st.(*ast.ExprStmt); !isStmt || !f.receivesBare(st, ch) {
				continue
			}
			var ret *ast.ReturnStmt
			if i+1 < len(list) {
				ret, _ = list[i+1].(*ast.ReturnStmt)
			}
			if ret == nil || errIdx >= len(ret.Results) || info.Types[ret.Results[errIdx]].IsNil() {
				ok = false
				return false
			}
		}
		return true
	})
	return ok
}

// fieldReceivedElsewhere reports whether ch is a field (x.slot) that some
// function of the package other than the one with body receives from, as a
// bare statement or a select case whose value is dropped: the release.
func (s *state) fieldReceivedElsewhere(ch ast.Expr, body *ast.BlockStmt) bool {
	info := s.pass.TypesInfo
	sel, ok := ast.Unparen(ch).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fld, ok := info.ObjectOf(sel.Sel).(*types.Var)
	if !ok || !fld.IsField() {
		return false
	}
	found, prefilled := false, false
	for _, file := range s.pass.Files {
		// A send on the field in a loop fills it with tokens (a pool
		// whose receive acquires and whose send releases): the other way
		// round, not an acquirer's slot.
		ast.Inspect(file, func(n ast.Node) bool {
			var lb *ast.BlockStmt
			switch n := n.(type) {
			case *ast.ForStmt:
				lb = n.Body
			case *ast.RangeStmt:
				lb = n.Body
			default:
				return !prefilled
			}
			ast.Inspect(lb, func(m ast.Node) bool {
				if cc, ok := m.(*ast.CommClause); ok {
					// case s.slot <- struct{}{}: a send that waits
					// with other cases (ctx.Done) takes slots, one
					// per round (a drain); a pool is filled with
					// plain sends.
					for _, st := range cc.Body {
						ast.Inspect(st, func(n ast.Node) bool {
							if snd, ok := n.(*ast.SendStmt); ok {
								if x, ok := ast.Unparen(snd.Chan).(*ast.SelectorExpr); ok && info.ObjectOf(x.Sel) == fld {
									prefilled = true
								}
							}
							return !prefilled
						})
					}
					return false
				}
				if snd, ok := m.(*ast.SendStmt); ok {
					if x, ok := ast.Unparen(snd.Chan).(*ast.SelectorExpr); ok && info.ObjectOf(x.Sel) == fld {
						prefilled = true
					}
				}
				return !prefilled
			})
			return !prefilled
		})
	}
	if prefilled {
		return false
	}
	for _, file := range s.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			if found || n == ast.Node(body) {
				return false
			}
			var comm ast.Node
			switch n := n.(type) {
			case *ast.ExprStmt:
				comm = n
			case *ast.AssignStmt:
				if len(n.Lhs) == 1 && isBlank(n.Lhs[0]) {
					comm = n
				}
			}
			if comm == nil {
				return true
			}
			if x, ok := ast.Unparen(analysisutil.Received(comm)).(*ast.SelectorExpr); ok && info.ObjectOf(x.Sel) == fld {
				found = true
			}
			return !found
		})
	}
	return found
}

// receivesBare reports whether n holds a receive from ch whose value is
// dropped (`<-ch`, `_ = <-ch`), outside nested sends' select cases.
func (f *function) receivesBare(n ast.Node, ch ast.Expr) bool {
	found := false
	var visit func(m ast.Node) bool
	visit = func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.CommClause:
			// case <-sem: waits for a signal, it gives nothing back; look
			// at the body only.
			for _, s := range m.Body {
				ast.Inspect(s, func(n ast.Node) bool { return !found && visit(n) })
			}
			return false
		case *ast.ExprStmt, *ast.AssignStmt:
			if as, ok := m.(*ast.AssignStmt); ok && !(len(as.Lhs) == 1 && isBlank(as.Lhs[0])) {
				return true
			}
			if x := analysisutil.Received(m); x != nil && analysisutil.SamePath(f.info(), x, ch) {
				found = true
			}
		}
		return true
	}
	ast.Inspect(n, visit)
	return found
}

// localChan reports whether ch is a variable of this function (not a
// parameter, a field or a package variable).
func (f *function) localChan(ch ast.Expr) bool {
	id, ok := ast.Unparen(ch).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := f.info().ObjectOf(id).(*types.Var)
	return ok && v.Pos() > f.ftype.End() && v.Pos() < f.body.End()
}

// handsOn reports whether n passes ch to a call or stores it: whoever gets
// it may give the slot back.
func (f *function) handsOn(n ast.Node, ch ast.Expr) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.CallExpr:
			for _, a := range m.Args {
				if analysisutil.SamePath(f.info(), a, ch) {
					found = true
				}
			}
		case *ast.AssignStmt:
			for _, r := range m.Rhs {
				if analysisutil.SamePath(f.info(), r, ch) {
					found = true
				}
			}
		}
		return true
	})
	return found
}

func isBlank(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "_"
}

// sameSelect reports whether the clauses a and b belong to one select.
func (f *function) sameSelect(a, b *ast.CommClause) bool {
	ca, ok1 := f.cur.FindNode(a)
	cb, ok2 := f.cur.FindNode(b)
	return ok1 && ok2 && ca.Parent().Node() == cb.Parent().Node()
}
