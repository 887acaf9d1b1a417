package retrycancel

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// A loop stops on cancellation when one of its exits is taken for the
// bound call's error: the exit returns that error (or wraps it), or it is
// guarded only by tests that hold for any error. Exits guarded by `err ==
// nil` (success), by tests for specific errors (errors.Is(err, ErrNotFound),
// err == io.EOF) or by tests that do not mention the error at all (an
// attempt counter) are not taken when the call fails with context.Canceled.

// guard is what a condition on the way to an exit says about the error.
type guard int

const (
	guardOther    guard = iota // does not test the error: a counter, a flag
	guardSuccess               // taken when the error is nil
	guardSpecific              // taken for some errors only
	guardFinal                 // taken for any error (or unknown classifier)
)

// returnFinal reports whether ret leaves the loop on the bound call's error.
func (st *state) returnFinal(c inspector.Cursor, ret *ast.ReturnStmt, l *loop) bool {
	sig := l.f.Sig
	idx := analysisutil.ErrorResult(sig)
	carrier := false
	switch {
	case idx < 0:
	case len(ret.Results) == sig.Results().Len():
		carrier = st.res.MayCarryCancel(ret.Results[idx])
	case len(ret.Results) == 1:
		if call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr); ok {
			carrier = st.res.BoundCall(call)
		}
	}
	return st.exitFinal(c, l, carrier)
}

// leaves reports whether a break or goto leaves the loop.
func (st *state) leaves(c inspector.Cursor, br *ast.BranchStmt, l *loop) bool {
	if br.Label != nil {
		lbl, ok := st.info.Uses[br.Label].(*types.Label)
		return ok && !inside(lbl.Pos(), l.body)
	}
	if br.Tok != token.BREAK {
		return false
	}
	for p := c.Parent(); p.Node() != nil; p = p.Parent() {
		switch p.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			return p.Node() == l.stmt
		}
	}
	return false
}

// exitFinal reports whether the exit at c is taken whenever the bound call
// fails. carrier says whether the exit returns the call's error; such an
// exit with no guard at all is final too.
func (st *state) exitFinal(c inspector.Cursor, l *loop, carrier bool) bool {
	guards := 0
	child := c.Node()
	for p := c.Parent(); p.Node() != nil && p.Node() != l.stmt; p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.IfStmt:
			then := child == n.Body
			if child != n.Body && child != n.Else {
				break
			}
			if st.holdsBound(child, l) {
				// if ready { if err := f(ctx); err != nil { return err } }:
				// the outer test decides whether the call is made, not
				// what happens when it fails.
				break
			}
			guards++
			if st.classify(n.Cond, then) != guardFinal {
				return false
			}
		case *ast.CaseClause:
			if st.holdsBound(n, l) {
				break
			}
			guards++
			if st.classifyCase(p, n) != guardFinal {
				return false
			}
		case *ast.CommClause:
			if st.holdsBound(n, l) {
				// case <-tick.C: if err := f(ctx); err != nil { return err }:
				// the select picks when the call is made.
				break
			}
			if !st.stopChannel(n.Comm) {
				return false
			}
			if ch := st.otherLifetime(n.Comm, l); ch != nil {
				// case <-c.closed: return ErrClosed, while the attempts
				// run under the caller's ctx: the loop ends with c, not
				// with the context its calls fail on.
				if l.stopOnly == nil {
					l.stopOnly = ch
				}
				return false
			}
			return true
		case *ast.TypeSwitchStmt:
			if st.holdsBound(n.Body, l) {
				// switch m := msg.(type) { case *Auth: if err := f(ctx, m)... }:
				// the switch picks the call.
				break
			}
			return false
		}
		child = p.Node()
	}
	if guards == 0 {
		return carrier
	}
	return true
}

// holdsBound reports whether n contains one of the loop's bound calls.
func (st *state) holdsBound(n ast.Node, l *loop) bool {
	for _, call := range l.bound {
		if inside(call.Pos(), n) {
			return true
		}
	}
	return false
}

// otherLifetime returns the channel comm receives from when it is a field
// of an object (c.closed, s.quit) while the loop's bound calls run under a
// context parameter of the function: the caller's context, which can end
// long before the object is closed. Such an exit bounds the loop by the
// object's lifetime, not by the context its attempts fail on. Nil when the
// channel is a context's Done or not a field, or no bound call passes a
// context parameter.
func (st *state) otherLifetime(comm ast.Stmt, l *loop) ast.Expr {
	ch := analysisutil.Received(comm)
	sel, ok := ast.Unparen(ch).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if s := st.info.Selections[sel]; s == nil || s.Kind() != types.FieldVal {
		return nil // ctx.Done() and other calls, package channels
	}
	for _, call := range l.bound {
		for _, arg := range call.Args {
			obj := analysisutil.ObjectOfIdent(st.info, arg)
			if obj == nil || !analysisutil.IsContext(obj.Type()) {
				continue
			}
			for _, c := range l.f.Contexts {
				if c.Obj == obj && c.Kind == ctxflow.ParamContext && !c.Outer {
					return ch
				}
			}
		}
	}
	return nil
}

// stopChannel reports whether comm receives from a channel that is neither a
// timer nor data-less tick: a stop or done channel, or a work queue that may
// be closed.
func (st *state) stopChannel(comm ast.Stmt) bool {
	ch := analysisutil.Received(comm)
	return ch != nil && !isTimeChan(st.info.TypeOf(ch))
}

func (st *state) classifyCase(p inspector.Cursor, cc *ast.CaseClause) guard {
	sw, ok := p.Parent().Parent().Node().(*ast.SwitchStmt)
	if !ok {
		return guardOther
	}
	if sw.Tag == nil {
		if cc.List == nil { // default
			// Taken only when no other case holds: after `case err !=
			// nil:` (taken for any error) it is taken on success only.
			for _, s := range sw.Body.List {
				if other, ok := s.(*ast.CaseClause); ok && other != cc {
					for _, e := range other.List {
						if st.classify(e, true) == guardFinal {
							return guardSuccess
						}
					}
				}
			}
			if st.mentionsCarrier(sw.Body) {
				return guardFinal
			}
			return guardOther
		}
		best := guardOther
		for _, e := range cc.List {
			if g := st.classify(e, true); g > best {
				best = g
			}
		}
		return best
	}
	if !st.mentionsCarrier(sw.Tag) {
		return guardOther
	}
	if cc.List == nil {
		return guardFinal
	}
	for _, e := range cc.List {
		if tv, ok := st.info.Types[e]; ok && tv.IsNil() {
			return guardSuccess
		}
	}
	return guardSpecific
}

// classify says when the branch of cond (then or else) is taken.
func (st *state) classify(cond ast.Expr, then bool) guard {
	cond = ast.Unparen(cond)
	if st.checksCtx(cond) || cancelTest(st.info, cond) {
		return guardFinal
	}
	switch e := cond.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return st.classify(e.X, !then)
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR:
			// then-branch of && and else-branch of ||: every part must hold.
			all := (e.Op == token.LAND) == then
			x, y := st.classify(e.X, then), st.classify(e.Y, then)
			if all {
				return min(x, y)
			}
			return max(x, y)
		case token.EQL, token.NEQ:
			if !st.mentionsCarrier(e) {
				return guardOther
			}
			isNil := st.isNil(e.X) || st.isNil(e.Y)
			eq := (e.Op == token.EQL) == then
			switch {
			case isNil && eq:
				return guardSuccess
			case isNil:
				return guardFinal
			case eq:
				return guardSpecific
			default:
				return guardFinal
			}
		}
	case *ast.Ident:
		if c := st.classified[st.info.ObjectOf(e)]; c != nil {
			// retry, wait := shouldRetry(attempt, err); if !retry { ... }
			return classifierGuard(c, then)
		}
		if st.verdicts[st.info.ObjectOf(e)] {
			// if !retry { return err }: the bound call's own verdict on
			// its error, which may well be false on cancellation.
			return guardFinal
		}
	case *ast.CallExpr:
		if !st.mentionsCarrier(e) {
			return guardOther
		}
		fn := analysisutil.Callee(st.info, e)
		if analysisutil.IsFunc(fn, "errors", "Is") || analysisutil.IsFunc(fn, "errors", "As") {
			if then {
				return guardSpecific
			}
			return guardFinal
		}
		if c := st.res.ClassifierOf(fn); c != nil && c.Param < len(e.Args) && st.mentionsCarrier(e.Args[c.Param]) {
			return classifierGuard(c, then)
		}
		// An unknown classifier (retryable(err), isPermanent(err)): it may
		// well stop on cancellation; precision first.
		return guardFinal
	}
	return guardOther
}

// classifierGuard says when the branch of a classifier's verdict (then: it
// said true) is taken: on every end of the context when the classifier's
// verdict on both Canceled and DeadlineExceeded selects it, not on some
// end when its verdict on one of them selects the other branch (a retry
// predicate that says true for a cancellation), and, like an unknown
// classifier, final otherwise.
func classifierGuard(c *ctxflow.ClassifiesCancel, then bool) guard {
	want, other := ctxflow.VerdictTrue, ctxflow.VerdictFalse
	if !then {
		want, other = other, want
	}
	switch {
	case c.OnCanceled == want && c.OnDeadline == want:
		return guardFinal
	case c.OnCanceled == other || c.OnDeadline == other:
		return guardSpecific
	}
	return guardFinal
}

func (st *state) isNil(e ast.Expr) bool {
	tv, ok := st.info.Types[e]
	return ok && tv.IsNil()
}

// mentionsCarrier reports whether n mentions an error variable that may
// carry cancellation there (any error variable while st.anyErr).
func (st *state) mentionsCarrier(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.Ident:
			if v, ok := st.info.Uses[n].(*types.Var); ok && analysisutil.IsError(v.Type()) && (st.anyErr || st.boundErr[v] || st.res.MayCarryCancel(n)) {
				found = true
			}
		case *ast.CallExpr:
			// for limiter.Wait(ctx) == nil { ... }: the bound call's error
			// itself.
			if st.loopCalls[n] && analysisutil.IsError(st.info.TypeOf(n)) {
				found = true
			}
		}
		return true
	})
	return found
}
