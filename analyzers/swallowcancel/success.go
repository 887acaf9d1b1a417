package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// checkIf handles the three shapes of an if statement that turns
// cancellation into success:
//
//	if ctx.Err() != nil { return nil }                 (a cancellation test mapped to nil)
//	if err != nil { ...; return nil }                  (a carrier mapped to nil)
//	for _, x := range xs { if err != nil { log(err) } } (logged and continued)
func (s *state) checkIf(cur inspector.Cursor, n *ast.IfStmt) {
	f := s.res.Enclosing(cur)
	if f == nil || len(n.Body.List) == 0 && n.Else == nil {
		return
	}
	// A filter (`err != nil && !errors.Is(err, context.Canceled)`) first:
	// when err is a context's own error (from a wait helper), the condition
	// is also a test of that context, but what it does is let a
	// cancellation past.
	if s.checkFiltered(cur, f, n) {
		return
	}
	if t, ok := s.res.CancelTestOf(n.Cond); ok {
		if t.Ctx != nil && t.Err == nil {
			s.checkOtherErr(cur, n.Body.List, t.Ctx, "this branch")
		}
		s.checkIterCancel(f, n, t)
		s.checkCancelTest(cur, f, n, t)
		return
	}
	errVar, errExpr := s.testedCarrier(n.Cond)
	if errVar == nil || s.res.ChecksCancel(n.Cond) || s.res.ChecksCancel(n.Body) {
		return
	}
	if analysisutil.UsedOutsideLogs(s.info, n.Body, errVar) || s.checkedBefore(cur, errVar) {
		return
	}
	if call := sourceCall(cur, n, errVar, s.info); call != nil && s.isCleanup(calleeShortName(s.info, call)) || s.inTeardown(f) {
		return // a teardown error, logged on the way out
	}
	last := lastStmt(n.Body)
	if ret, ok := last.(*ast.ReturnStmt); ok {
		idx := analysisutil.ErrorResult(f.Sig)
		if idx < 0 || s.quiet[f] || !s.returnsNilError(f, ret, idx) {
			return
		}
		var fixes []analysis.SuggestedFix
		if len(ret.Results) == f.Sig.Results().Len() {
			fixes = []analysis.SuggestedFix{{
				Message:   "Return the error",
				TextEdits: []analysis.TextEdit{{Pos: ret.Results[idx].Pos(), End: ret.Results[idx].End(), NewText: []byte(errExpr.Name)}},
			}}
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: n.Pos(),
			End: n.Cond.End(),
			Message: fmt.Sprintf("%s may carry the cancellation of %s and this branch returns a nil error instead, so callers see success after it is canceled",
				errExpr.Name, orCaller(s.ctxFor(f, nil))),
			Related:        []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the error becomes nil here"}},
			SuggestedFixes: fixes,
		})
		return
	}
	if br, ok := last.(*ast.BranchStmt); ok && br.Tok == token.BREAK {
		s.checkFailBreak(cur, f, n, br, errVar, errExpr)
		return
	}
	if n.Else != nil {
		return // an else: handling other than logging (a fallback)
	}
	s.reportLogged(cur, f, n, n.Body, n.Pos(), n.Cond.End(), errVar, errExpr)
}

// perRoundDeadline reports whether every context call is given is a
// local declared inside loop's body that can only time out (a deadline
// of a detached parent: ctxflow's DeadlineOnly), and it is given one.
func (s *state) perRoundDeadline(call *ast.CallExpr, loop ast.Stmt) bool {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	}
	if body == nil {
		return false
	}
	n := 0
	for _, arg := range call.Args {
		if !analysisutil.IsContext(s.info.TypeOf(arg)) {
			continue
		}
		id, ok := ast.Unparen(arg).(*ast.Ident)
		if !ok {
			return false
		}
		v, ok := s.info.Uses[id].(*types.Var)
		if !ok || v.Pos() < body.Pos() || v.Pos() >= body.End() || !s.res.DeadlineOnly(arg) {
			return false
		}
		n++
	}
	return n > 0
}

// reportLogged reports body, the branch taken when errVar (a carrier) is
// not nil, when it only logs the error and carries on: an if statement's
// body (ifn), or a switch clause's taken on failure. pos and end are the
// extent of the report (the if and its condition, the case).
func (s *state) reportLogged(cur inspector.Cursor, f *ctxflow.Func, ifn *ast.IfStmt, body *ast.BlockStmt, pos, end token.Pos, errVar *types.Var, errExpr *ast.Ident) {
	last := lastStmt(body)
	if endsFlow(s.info, last) || !s.logOnly(body) {
		return // an exit, or handling other than logging (a fallback)
	}
	// The call whose error the branch handles names the context: the
	// function's own deadline is not the caller's context.
	var src *ast.CallExpr
	if ifn != nil {
		src = sourceCall(cur, ifn, errVar, s.info)
	}
	// The branch logs (or ignores) the error and carries on: in a loop over
	// a collection that means working on after cancellation; elsewhere, in
	// a function that returns an error and does no more context-bound work,
	// the cancellation is lost for good.
	loop := enclosingLoop(cur)
	if loop == nil {
		if analysisutil.ErrorResult(f.Sig) < 0 || s.quiet[f] || s.laterBoundWork(cur, f) || !s.endsInSuccess(cur, f) ||
			s.readLater(f, last, errVar) {
			// ... or the error is looked at again after the branch (if err
			// != nil { log(err) }; ...; if err != nil { return err }): it
			// was logged, not only logged.
			return
		}
		var fixes []analysis.SuggestedFix
		if ifn != nil {
			fixes = s.returnInBranchFix(f, ifn, errExpr.Name)
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: pos,
			End: end,
			Message: fmt.Sprintf("%s may carry the cancellation of %s and is only logged, so %s goes on and returns success after it is canceled",
				errExpr.Name, orCaller(s.ctxFor(f, src)), f.Name()),
			SuggestedFixes: fixes,
		})
		return
	}
	if ifn != nil {
		if src != nil && s.perRoundDeadline(src, loop) {
			// ctx, cancel := context.WithDeadline(context.Background(), d)
			// made in the round: its end is that item's own timeout, and
			// the next item gets a fresh one.
			return
		}
	}
	if s.quiet[f] || analysisutil.IsRetryLoop(s.info, loop) || s.inRetryLoop(cur) || s.loopChecksCancel(loop) || s.checksAfterLoop(cur, f, loop) {
		return
	}
	if s.keptPastLoop(f, loop, errExpr) {
		// for _, b := range brokers { if conn, err = dial(ctx, b); err != nil
		// { continue } ... }, then err is used: a failover that reports
		// the last failure, cancellation included.
		return
	}
	if rs, ok := loop.(*ast.RangeStmt); ok && isChan(s.info.TypeOf(rs.X)) && analysisutil.ErrorResult(f.Sig) < 0 {
		// A stream read by a function with no error to return: logging
		// each failure is all it can do, and the stream ends when its
		// sender closes it.
		return
	}
	if s.loopIsLastAct(f, loop) {
		// func dispatch(ctx) { for _, s := range sinks { if err :=
		// s.Send(ctx, ev); err != nil { log(err); continue } } }: nothing
		// after the loop, and no result: no one is told the work was done.
		return
	}
	ctx := s.ctxFor(f, src)
	msg := fmt.Sprintf("%s may carry the cancellation of %s and is only %s, so %s goes on after cancellation and %s fails once per remaining item",
		errExpr.Name, orCaller(ctx), handledHow(s.info, body), describeLoop(loop), f.Name())
	if rs, ok := loop.(*ast.RangeStmt); ok && rangeVar(s.info, rs, errVar) {
		// The iterator itself yields the error: whether it then stops or
		// goes on is the iterator's business, but when the function then
		// returns a nil error nothing tells the caller the walk was cut
		// short.
		lc := cur
		for lc.Node() != loop {
			lc = lc.Parent()
		}
		if analysisutil.ErrorResult(f.Sig) < 0 || !s.endsInSuccess(lc, f) {
			return
		}
		msg = fmt.Sprintf("%s, yielded by %s, may carry the cancellation of %s and is only %s, so %s returns as if the iteration had finished after it is canceled",
			errExpr.Name, types.ExprString(rs.X), orCaller(ctx), handledHow(s.info, body), f.Name())
	}
	s.rep.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            end,
		Message:        msg,
		SuggestedFixes: s.stopLoopFixesOr(f, ctx, body.Lbrace+1, true, s.breakEndsGoroutine(cur, f, loop)),
	})
}

// rangeVar reports whether v is an iteration variable of rs.
func rangeVar(info *types.Info, rs *ast.RangeStmt, v *types.Var) bool {
	for _, e := range []ast.Expr{rs.Key, rs.Value} {
		if id, ok := e.(*ast.Ident); ok && info.ObjectOf(id) == v {
			return true
		}
	}
	return false
}

// keptPastLoop reports whether the error variable outlives the loop: it is
// declared before the loop and read after it, or it is a named result of
// f, so the last failure reaches whoever looks at it after the loop.
func (s *state) keptPastLoop(f *ctxflow.Func, loop ast.Stmt, id *ast.Ident) bool {
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok || v.Pos() >= loop.Pos() && v.Pos() < loop.End() {
		return false
	}
	for i := range f.Sig.Results().Len() {
		if f.Sig.Results().At(i) == v {
			return true
		}
	}
	used := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if used || n == nil || n.End() <= loop.End() {
			return false // found, or wholly before the loop's end
		}
		if x, ok := n.(*ast.Ident); ok && x.Pos() >= loop.End() && s.info.Uses[x] == v {
			used = true
		}
		return !used
	})
	return used
}

// handledHow says what a log-only branch does with the error: "logged" or
// "skipped".
func handledHow(info *types.Info, b *ast.BlockStmt) string {
	for _, st := range b.List {
		if es, ok := st.(*ast.ExprStmt); ok {
			if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && analysisutil.IsLogCall(info, call) {
				return "logged"
			}
		}
	}
	return "skipped"
}

// logOnly reports whether a branch only logs, counts and moves on: its
// statements are log calls, increments and a final continue.
func (s *state) logOnly(b *ast.BlockStmt) bool {
	for _, st := range b.List {
		switch st := st.(type) {
		case *ast.ExprStmt:
			call, ok := ast.Unparen(st.X).(*ast.CallExpr)
			if !ok || !analysisutil.IsLogCall(s.info, call) {
				return false
			}
		case *ast.IncDecStmt, *ast.EmptyStmt:
		case *ast.BranchStmt:
			if st.Tok != token.CONTINUE {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// sourceCall returns the call whose error the if statement tests: the call
// of its init statement, or of the statement just before it.
func sourceCall(cur inspector.Cursor, n *ast.IfStmt, v *types.Var, info *types.Info) *ast.CallExpr {
	as, call := sourceAssign(cur, n, v, info)
	if as == nil {
		return nil
	}
	return call
}

// sourceAssign returns the assignment of v from a single call that the if
// statement at cur tests (its init, or the statement just before it), and
// that call (nil when the right side is not a call); nil when there is none.
func sourceAssign(cur inspector.Cursor, n *ast.IfStmt, v *types.Var, info *types.Info) (*ast.AssignStmt, *ast.CallExpr) {
	st := n.Init
	if st == nil {
		if prev, ok := cur.PrevSibling(); ok {
			st, _ = prev.Node().(ast.Stmt)
		}
	}
	as, ok := st.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return nil, nil
	}
	for _, l := range as.Lhs {
		if id, ok := l.(*ast.Ident); ok && info.ObjectOf(id) == v {
			call, _ := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			return as, call
		}
	}
	return nil, nil
}

// checksAfterLoop reports whether the function tests its context on every
// path from the loop's end to a return, with one such path at least
// (return ctx.Err() after the loop; an enclosing loop whose next round
// tests it before it can return): the cancellation is reported, only late,
// and the churn is bounded by the rest of the collection.
func (s *state) checksAfterLoop(cur inspector.Cursor, f *ctxflow.Func, loop ast.Stmt) bool {
	g := s.graphs.Func(f.Node)
	if g == nil {
		return false
	}
	p, ok := g.LoopDone(loop)
	if !ok {
		return false
	}
	check := func(n ast.Node) bool { return s.res.ChecksCancel(n) }
	if _, ok := g.Reaches(p, check, nil); !ok {
		return false
	}
	return g.OnEveryPath(p, check)
}

// endsInSuccess reports whether the function, after the statement at cur,
// reaches a return of a nil error (or its end, for a literal) without
// returning a non-nil error on the way.
func (s *state) endsInSuccess(cur inspector.Cursor, f *ctxflow.Func) bool {
	idx := analysisutil.ErrorResult(f.Sig)
	for c := cur; c.Node() != f.Body; c = c.Parent() {
		if _, ok := c.Parent().Node().(*ast.BlockStmt); !ok {
			continue
		}
		for sib, ok := c.NextSibling(); ok; sib, ok = sib.NextSibling() {
			if ret, ok := sib.Node().(*ast.ReturnStmt); ok {
				return s.returnsNilError(f, ret, idx)
			}
		}
	}
	return false
}

// returnInBranchFix appends `return ..., err` to the branch.
func (s *state) returnInBranchFix(f *ctxflow.Func, n *ast.IfStmt, errName string) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, n.Pos())
	if file == nil || len(n.Body.List) == 0 {
		return nil
	}
	ret, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, errName)
	if !ok {
		return nil
	}
	last := n.Body.List[len(n.Body.List)-1]
	indent := s.indentAt(last.Pos())
	pos := last.End()
	if tf := s.pass.Fset.File(pos); tf != nil && tf.Line(pos) < tf.LineCount() {
		pos = tf.LineStart(tf.Line(pos)+1) - 1
	}
	return []analysis.SuggestedFix{{
		Message:   "Return the error",
		TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte("\n" + indent + ret)}},
	}}
}

// testedCarrier returns the error variable tested by `err != nil` (alone or
// in a conjunction) when it may carry cancellation at the test.
func (s *state) testedCarrier(cond ast.Expr) (*types.Var, *ast.Ident) {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return nil, nil
	}
	switch c.Op {
	case token.LAND:
		if v, id := s.testedCarrier(c.X); v != nil {
			return v, id
		}
		return s.testedCarrier(c.Y)
	case token.NEQ:
		x, y := c.X, c.Y
		if isNilExpr(s.info, x) {
			x, y = y, x
		}
		id, ok := ast.Unparen(x).(*ast.Ident)
		if !ok || !isNilExpr(s.info, y) {
			return nil, nil
		}
		v, ok := s.info.ObjectOf(id).(*types.Var)
		if !ok || !analysisutil.IsError(v.Type()) || !s.res.MayCarryCancel(id) {
			return nil, nil
		}
		return v, id
	}
	return nil, nil
}

// checkedBefore reports whether an earlier if statement of the same block
// tests v for cancellation (errors.Is(v, context.Canceled) ...): the
// remaining errors are then handled deliberately.
func (s *state) checkedBefore(cur inspector.Cursor, v *types.Var) bool {
	for c, ok := cur.PrevSibling(); ok; c, ok = c.PrevSibling() {
		if is, ok := c.Node().(*ast.IfStmt); ok && analysisutil.ReferencesObject(s.info, is.Cond, v) && s.res.ChecksCancel(is.Cond) {
			return true
		}
	}
	return false
}

// stoppedItself reports whether, on every path from the function's entry
// to the test n of the error errExpr, the function has called a
// cancel function (a value of type context.CancelFunc or
// context.CancelCauseFunc: a field, a variable) outside a defer, and no
// definition of the error before the test comes from a call given a
// context parameter of the function: the function stopped
// the work itself (`w.cancel(); err := <-w.done`), so a context.Canceled
// is that stop, and filtering it loses no caller's cancellation.
//
//	func (w *Watcher) Stop() error {
//		w.cancel()
//		err := <-w.done
//		if errors.Is(err, context.Canceled) {
//			return nil
//		}
//		return err
//	}
func (s *state) stoppedItself(f *ctxflow.Func, n *ast.IfStmt, errExpr ast.Expr) bool {
	id, ok := ast.Unparen(errExpr).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok {
		return false
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return false
	}
	at, ok := g.Locate(n.Cond)
	if !ok {
		return false
	}
	if n.Init != nil {
		if p, ok := g.Locate(n.Init); ok {
			at = p
		}
	}
	// The error's definitions that reach the test must come from no call
	// given one of f's context parameters.
	defs, _, known := g.DefsReaching(v, n.Cond)
	if !known {
		return false
	}
	for _, d := range defs {
		if as, ok := d.(*ast.AssignStmt); ok {
			for _, r := range as.Rhs {
				if s.givenParamCtx(f, r) {
					return false
				}
			}
		}
	}
	target := at.Node()
	stop := func(m ast.Node) bool {
		if _, ok := m.(*ast.DeferStmt); ok {
			return false
		}
		found := false
		ast.Inspect(m, func(x ast.Node) bool {
			if found {
				return false
			}
			if _, lit := x.(*ast.FuncLit); lit {
				return false
			}
			if call, ok := x.(*ast.CallExpr); ok && isCancelFunc(s.info.TypeOf(call.Fun)) {
				found = true
			}
			return !found
		})
		return found
	}
	_, unstopped := g.Reaches(g.Entry(), func(m ast.Node) bool { return m == target }, stop)
	return !unstopped && !stop(target)
}

// givenParamCtx reports whether e contains a call given a context parameter
// of f.
func (s *state) givenParamCtx(f *ctxflow.Func, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(m ast.Node) bool {
		call, ok := m.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		for _, a := range call.Args {
			for i := range f.Contexts {
				c := &f.Contexts[i]
				if c.Kind == ctxflow.ParamContext && c.Obj != nil && analysisutil.ReferencesObject(s.info, a, c.Obj) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// isCancelFunc reports whether t is context.CancelFunc or
// context.CancelCauseFunc.
func isCancelFunc(t types.Type) bool {
	return t != nil && (analysisutil.IsNamed(t, "context", "CancelFunc") || analysisutil.IsNamed(t, "context", "CancelCauseFunc"))
}

// checkCancelTest reports `if <cancellation test> { return nil }`.
func (s *state) checkCancelTest(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt, t ctxflow.CancelTest) {
	if t.Ctx != nil && !s.ctxOwned(t.Ctx) {
		return
	}
	if t.Ctx != nil && t.Canceled && t.Deadline && analysisutil.ErrorResult(f.Sig) < 0 && len(n.Body.List) > 0 && !s.res.Detached(t.Ctx) {
		s.checkUnrecorded(f, n.Body.List[0], t.Ctx, n, n.Cond)
	}
	if t.Err != nil && t.Canceled && (s.selfCanceled(cur, f, n, t.Err) || s.stoppedItself(f, n, t.Err)) {
		if sp := s.parentShadowed(f, n.Cond); sp != nil && s.clearsError(f, n, t) {
			s.reportShadowed(f, n, sp, types.ExprString(t.Err), n.Body)
		}
		return // the function's own early stop
	}
	if s.clearsError(f, n, t) {
		var fixes []analysis.SuggestedFix
		if !s.lastImportUse(n) {
			fixes = []analysis.SuggestedFix{{
				Message:   "Keep the error",
				TextEdits: []analysis.TextEdit{{Pos: n.Pos(), End: n.End()}},
			}}
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: n.Pos(),
			End: n.Cond.End(),
			Message: fmt.Sprintf("when %s is a cancellation this branch sets it to nil, so %s reports success for work that was canceled",
				types.ExprString(t.Err), f.Name()),
			SuggestedFixes: fixes,
		})
		return
	}
	if br, ok := lastStmt(n.Body).(*ast.BranchStmt); ok && br.Tok == token.CONTINUE && br.Label == nil && t.Canceled {
		// Skipping a canceled item: the loop goes on with the rest.
		loop := enclosingLoop(cur)
		if loop == nil || analysisutil.IsRetryLoop(s.info, loop) || s.inRetryLoop(cur) {
			return
		}
		for _, st := range n.Body.List[:len(n.Body.List)-1] {
			if s.res.ChecksCancel(st) {
				return // the branch stops the loop once the context ends
			}
		}
		what := "the context has ended"
		if t.Err != nil {
			what = types.ExprString(t.Err) + " is a cancellation"
		}
		ctx := s.ctxFor(f, nil)
		if t.Ctx != nil {
			ctx = types.ExprString(t.Ctx)
		}
		s.rep.Report(analysis.Diagnostic{
			Pos:            n.Pos(),
			End:            n.Cond.End(),
			Message:        fmt.Sprintf("when %s this branch skips to the next item, so %s goes on after cancellation and %s fails once per remaining item", what, describeLoop(loop), f.Name()),
			SuggestedFixes: s.stopLoopFixes(f, ctx, n.Body.Lbrace+1, true),
		})
		return
	}
	if br, ok := lastStmt(n.Body).(*ast.BranchStmt); ok && br.Tok == token.BREAK {
		s.checkTestBreak(cur, f, n, br, t)
		return
	}
	if s.answersClient(n.Body) {
		// if errors.Is(err, context.Canceled) { w.WriteHeader(499); return nil }:
		// the client that left is answered; the request is done.
		return
	}
	if _, ok := lastStmt(n.Body).(*ast.ReturnStmt); !ok {
		s.checkFallThrough(cur, f, n, t)
		return
	}
	s.reportNilOnCancel(f, t, lastStmt(n.Body), n.Pos(), n.Cond.End(), nil)
}

// checkFallThrough reports a test that the function's context has ended
// whose branch goes on, notes the end somewhere (a log, a field of the
// result) and falls through to returns that all give a nil error: the
// function saw that it was canceled and tells its caller the work is done.
//
//	res := c.crawl(ctx, hosts)
//	if ctx.Err() != nil {
//		res.Incomplete = append(res.Incomplete, ctx.Err())
//	}
//	return res, nil
//
// Only for a test of the context itself (ctx.Err() != nil, a Done
// receive), outside loops, in a function with an error result whose
// branch neither leaves (return, panic, break, goto) nor sets any error
// the function returns: every return reachable from the branch must
// return a literal nil error, so no path reports the end.
func (s *state) checkFallThrough(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt, t ctxflow.CancelTest) {
	idx := analysisutil.ErrorResult(f.Sig)
	if t.Ctx == nil || t.Err != nil || !t.Canceled || !t.Deadline || n.Else != nil || len(n.Body.List) == 0 || idx < 0 {
		return
	}
	if s.quiet[f] || s.groupGoroutine(f) || s.inTeardown(f) || s.stopsOnlyOnCancel(f) || s.res.Detached(t.Ctx) || s.callbackOf(f, t.Ctx) {
		return
	}
	if loop := enclosingLoop(cur); loop != nil && loop.Pos() > f.Node.Pos() && loop.End() <= f.Node.End() {
		return
	}
	leaves := false
	ast.Inspect(n.Body, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.BranchStmt:
			leaves = true
		case *ast.ExprStmt:
			if endsFlow(s.info, m) {
				leaves = true
			}
		}
		return !leaves
	})
	if leaves {
		return
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return
	}
	start, ok := g.Locate(n.Body.List[0])
	if !ok {
		return
	}
	var nilRet *ast.ReturnStmt
	other := false
	g.Reaches(start, func(m ast.Node) bool {
		ret, ok := m.(*ast.ReturnStmt)
		if !ok {
			return false
		}
		if !s.returnsNilError(f, ret, idx) {
			other = true
			return true
		}
		if nilRet == nil {
			nilRet = ret
		}
		return false
	}, nil)
	if other || nilRet == nil {
		return
	}
	if !s.onlyNilExits(g, start, f, idx) {
		return
	}
	ctx := types.ExprString(t.Ctx)
	var fixes []analysis.SuggestedFix
	if next, ok := cur.NextSibling(); ok && next.Node() == nilRet && len(nilRet.Results) == f.Sig.Results().Len() {
		// The return right after the branch: the same results, with the
		// context's error, at the branch's end.
		var parts []string
		for i, r := range nilRet.Results {
			if i == idx {
				parts = append(parts, ctx+".Err()")
			} else {
				parts = append(parts, s.source(r))
			}
		}
		if !slices.Contains(parts, "") {
			body := n.Body.List[len(n.Body.List)-1]
			fixes = append(fixes, analysis.SuggestedFix{
				Message:   "Return the context's error",
				TextEdits: []analysis.TextEdit{{Pos: body.End(), End: body.End(), NewText: []byte("\nreturn " + strings.Join(parts, ", "))}},
			})
		}
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: n.Pos(),
		End: n.Cond.End(),
		Message: fmt.Sprintf("when %s has ended this branch goes on to return a nil error, so %s reports success for work that was canceled; return %s.Err() from the branch",
			ctx, f.Name(), ctx),
		Related:        []analysis.RelatedInformation{{Pos: nilRet.Pos(), End: nilRet.End(), Message: "the cancellation becomes nil here"}},
		SuggestedFixes: fixes,
	})
}

// onlyNilExits reports whether every exit reached from start is a return
// of a nil error (not a panic or the end of a function without results).
func (s *state) onlyNilExits(g *flow.Graph, start flow.Point, f *ctxflow.Func, idx int) bool {
	_, escapes := g.ExitAvoiding(start, func(m ast.Node) bool {
		ret, ok := m.(*ast.ReturnStmt)
		return ok && s.returnsNilError(f, ret, idx)
	})
	return !escapes
}

// answersClient reports whether b writes an HTTP status: a
// WriteHeader(int) method call (http.ResponseWriter and its wrappers), or
// http.Error.
func (s *state) answersClient(b *ast.BlockStmt) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn := analysisutil.Callee(s.info, call)
		if analysisutil.IsFunc(fn, "net/http", "Error") {
			found = true
		}
		// WriteHeader(statusCode int) of an http.ResponseWriter or a
		// wrapper of one.
		if fn != nil && fn.Name() == "WriteHeader" {
			sig := fn.Type().(*types.Signature)
			if sig.Recv() != nil && sig.Params().Len() == 1 && sig.Results().Len() == 0 &&
				types.Identical(sig.Params().At(0).Type(), types.Typ[types.Int]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// reportNilOnCancel reports a branch taken on the cancellation test t
// whose last statement last returns a nil error; pos and end span the test.
// A non-nil own replaces the fixes returning the error (a case that other
// errors share keeps its return and loses the cancellation test instead).
func (s *state) reportNilOnCancel(f *ctxflow.Func, t ctxflow.CancelTest, last ast.Stmt, pos, end token.Pos, own []analysis.SuggestedFix) {
	ret, ok := last.(*ast.ReturnStmt)
	idx := analysisutil.ErrorResult(f.Sig)
	if !ok || idx < 0 || s.quiet[f] || s.groupGoroutine(f) || !s.returnsNilError(f, ret, idx) || s.stopsOnlyOnCancel(f) {
		return
	}
	if t.Ctx != nil && s.callbackOf(f, t.Ctx) {
		return // the callee that holds the context reports its end
	}
	if t.Err != nil && !t.Canceled && s.fallbackAnswer(f, ret, idx, pos) {
		// if errors.Is(err, context.DeadlineExceeded) { return
		// defaultImage(), nil }: a timeout answered with a stand-in, a
		// degraded answer the function chose, not work passed off as done.
		return
	}
	var errText, what string
	ended := "was canceled"
	switch {
	case t.Err != nil && !t.Canceled:
		errText = types.ExprString(t.Err)
		what = errText + " is a deadline's expiry"
		ended = "timed out"
	case t.Err != nil:
		errText = types.ExprString(t.Err)
		what = errText + " is a cancellation"
	default:
		errText = types.ExprString(t.Ctx) + ".Err()"
		what = types.ExprString(t.Ctx) + " has ended"
	}
	fixes := own
	if own == nil && len(ret.Results) == f.Sig.Results().Len() {
		fixes = append(fixes, analysis.SuggestedFix{
			Message:   "Return the error",
			TextEdits: []analysis.TextEdit{{Pos: ret.Results[idx].Pos(), End: ret.Results[idx].End(), NewText: []byte(errText)}},
		})
		if t.Ctx != nil && t.Err == nil {
			fixes = append(fixes, s.stopErrFix(ret.Results[idx], t.Ctx)...)
		}
	}
	s.rep.Report(analysis.Diagnostic{
		Pos:            pos,
		End:            end,
		Message:        fmt.Sprintf("when %s this branch returns a nil error, so %s reports success for work that %s", what, f.Name(), ended),
		Related:        []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the cancellation becomes nil here"}},
		SuggestedFixes: fixes,
	})
}

// lastImportUse reports whether n holds the only uses in its file of an
// imported package, so that deleting n would leave an unused import.
func (s *state) lastImportUse(n ast.Node) bool {
	file := analysisutil.FileOf(s.pass, n.Pos())
	if file == nil {
		return true
	}
	inside := make(map[*types.PkgName]bool)
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok {
			if pn, ok := s.info.Uses[id].(*types.PkgName); ok {
				inside[pn] = true
			}
		}
		return true
	})
	for id, obj := range s.info.Uses {
		pn, ok := obj.(*types.PkgName)
		if !ok || !inside[pn] || (id.Pos() >= n.Pos() && id.Pos() < n.End()) || id.Pos() < file.FileStart || id.Pos() > file.FileEnd {
			continue
		}
		delete(inside, pn) // used elsewhere in the file
	}
	return len(inside) > 0
}

// noteCtxErrs records the variables st assigns x.Err() or
// context.Cause(x), at any depth.
func (s *state) noteCtxErrs(st ast.Stmt, x ast.Expr, vars map[types.Object]bool) {
	ctx := types.ExprString(x)
	ast.Inspect(st, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, r := range as.Rhs {
			if of := s.res.CtxEndOf(r); of == nil || types.ExprString(of) != ctx {
				continue
			}
			if id, ok := as.Lhs[i].(*ast.Ident); ok {
				if v := s.info.ObjectOf(id); v != nil {
					vars[v] = true
				}
			}
		}
		return true
	})
}

// returnsIfSet reports whether st is `if v != nil { ...; return }` for a
// variable of vars, without an else.
func (s *state) returnsIfSet(st ast.Stmt, vars map[types.Object]bool) bool {
	ifs, ok := st.(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || len(vars) == 0 {
		return false
	}
	if _, ok := lastStmt(ifs.Body).(*ast.ReturnStmt); !ok {
		return false
	}
	b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	v, other := b.X, b.Y
	if isNilExpr(s.info, v) {
		v, other = other, v
	}
	id, ok := ast.Unparen(v).(*ast.Ident)
	return ok && isNilExpr(s.info, other) && vars[s.info.ObjectOf(id)]
}

// clearsError reports `if errors.Is(err, context.Canceled) { err = nil }`
// in a function that returns an error and may not end quietly.
func (s *state) clearsError(f *ctxflow.Func, n *ast.IfStmt, t ctxflow.CancelTest) bool {
	if t.Err == nil || !t.Canceled || n.Init != nil || n.Else != nil || len(n.Body.List) != 1 {
		return false
	}
	if analysisutil.ErrorResult(f.Sig) < 0 || s.quiet[f] || s.groupGoroutine(f) {
		return false
	}
	if s.inTeardown(f) && !analysisutil.TakesContext(f.Sig) {
		// func (w *watcher) Close() error { ...; if errors.Is(err,
		// context.Canceled) { err = nil } }: the cancellation is the
		// close's own doing, and there is no caller's context to report.
		return false
	}
	as, ok := n.Body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !isNilExpr(s.info, as.Rhs[0]) {
		return false
	}
	return types.ExprString(as.Lhs[0]) == types.ExprString(t.Err)
}

// checkDone reports `case <-ctx.Done(): return nil` in a function that
// returns an error.
// checkNilCompletions reports, in a `case <-ctx.Done():` clause, pending
// work completed as a success: a call of a function value (a callback
// field, parameter or variable, not a declared function) that passes nil
// for an error parameter, or a send of nil on a channel of errors.
//
//	case <-ctx.Done():
//		for _, r := range pending {
//			r.Done(nil) // the writer is told its write was persisted
//		}
//
// Whoever waits on that completion is told the work succeeded although
// it was abandoned when the context ended; pass ctx.Err().
func (s *state) checkNilCompletions(cc *ast.CommClause, x ast.Expr) {
	ctx := types.ExprString(x)
	report := func(n, arg ast.Node, what string) {
		s.rep.Report(analysis.Diagnostic{
			Pos: n.Pos(), End: n.End(),
			Message: fmt.Sprintf("%s completes with a nil error when %s is done: whoever waits on it is told the work succeeded although it was abandoned; pass %s.Err()", what, ctx, ctx),
			SuggestedFixes: []analysis.SuggestedFix{{
				Message:   "Complete with the context's error",
				TextEdits: []analysis.TextEdit{{Pos: arg.Pos(), End: arg.End(), NewText: []byte(ctx + ".Err()")}},
			}},
		})
	}
	for _, st := range cc.Body {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SendStmt:
				if ch, ok := s.info.TypeOf(n.Chan).Underlying().(*types.Chan); ok && analysisutil.IsError(ch.Elem()) && isNilExpr(s.info, n.Value) {
					report(n, n.Value, "this send on "+types.ExprString(n.Chan))
				}
			case *ast.CallExpr:
				if analysisutil.Callee(s.info, n) != nil {
					return true // a declared function or method: who knows what nil means there
				}
				sig, ok := s.info.TypeOf(n.Fun).Underlying().(*types.Signature)
				if !ok || sig.Variadic() {
					return true
				}
				for i, a := range n.Args {
					if i < sig.Params().Len() && analysisutil.IsError(sig.Params().At(i).Type()) && isNilExpr(s.info, a) {
						report(n, a, types.ExprString(n.Fun))
						break
					}
				}
			}
			return true
		})
	}
}

func (s *state) checkDone(cur inspector.Cursor, cc *ast.CommClause) {
	if cc.Comm == nil {
		return
	}
	x := s.res.DoneContext(cc.Comm)
	if x == nil {
		return
	}
	s.checkOtherErr(cur, cc.Body, x, "this case")
	if s.res.Detached(x) {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil {
		return
	}
	if !s.ctxOwned(x) {
		if s.oneShotOnField(cur, f, x) {
			s.checkClaimedResult(cur, f, cc, x)
		}
		return
	}
	if !s.quiet[f] {
		s.checkNilCompletions(cc, x)
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 && len(cc.Body) > 0 {
		s.checkUnrecorded(f, cc.Body[0], x, cc.Comm, cc.Comm)
	}
	if idx < 0 || s.quiet[f] || (s.groupGoroutine(f) || s.member[f.Node]) && !s.groupLosesCancel(f) || s.callbackOf(f, x) {
		return
	}
	ctxErrs := make(map[types.Object]bool) // variables assigned x.Err() in the clause
	for _, st := range cc.Body {
		if br, ok := st.(*ast.BranchStmt); ok && br.Tok == token.BREAK && br.Label != nil {
			s.checkBreakOut(cur, f, br, x)
			continue
		}
		s.noteCtxErrs(st, x, ctxErrs)
		if s.returnsIfSet(st, ctxErrs) {
			// if iErr == nil { iErr = ctx.Err() }; if iErr != nil { return
			// ..., iErr }: inside the clause ctx.Err() is never nil, so
			// nothing after this runs.
			break
		}
		ret, ok := st.(*ast.ReturnStmt)
		if !ok {
			continue
		}
		if len(ret.Results) == f.Sig.Results().Len() && analysisutil.WalkSkipReturn(s.info, cur, ret.Results[idx]) {
			s.reportWalkSkip(cur, f, ret, ret.Results[idx], x)
			continue
		}
		if !s.returnsNilError(f, ret, idx) {
			continue
		}
		ctx := types.ExprString(x)
		var fixes []analysis.SuggestedFix
		if len(ret.Results) == f.Sig.Results().Len() {
			fixes = append(fixes, analysis.SuggestedFix{
				Message:   "Return the context's error",
				TextEdits: []analysis.TextEdit{{Pos: ret.Results[idx].Pos(), End: ret.Results[idx].End(), NewText: []byte(ctx + ".Err()")}},
			})
			fixes = append(fixes, s.stopErrFix(ret.Results[idx], x)...)
		}
		s.rep.Report(analysis.Diagnostic{
			Pos:            ret.Pos(),
			End:            ret.End(),
			Message:        fmt.Sprintf("%s returns a nil error when %s is done, so callers see success for work that was canceled", f.Name(), ctx),
			SuggestedFixes: fixes,
		})
	}
}

// checkBreakOut reports `case <-ctx.Done(): break loop` when the statements
// after the loop reach a return of a nil error without looking at the
// context again:
//
//	loop:
//		for { select { case <-ctx.Done(): break loop; ... } }
//		return nil
func (s *state) checkBreakOut(cur inspector.Cursor, f *ctxflow.Func, br *ast.BranchStmt, x ast.Expr) {
	lbl, ok := s.info.Uses[br.Label].(*types.Label)
	if !ok {
		return
	}
	for c := cur; c.Valid() && c.Node() != f.Body; c = c.Parent() {
		ls, ok := c.Node().(*ast.LabeledStmt)
		if !ok || s.info.Defs[ls.Label] != lbl {
			continue
		}
		switch ls.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
		default:
			return
		}
		idx := analysisutil.ErrorResult(f.Sig)
		for sib, ok := c.NextSibling(); ok; sib, ok = sib.NextSibling() {
			if s.res.ChecksCancel(sib.Node()) || s.boundWorkIn(sib.Node()) {
				return
			}
			ret, ok := sib.Node().(*ast.ReturnStmt)
			if !ok {
				continue
			}
			if s.returnsNilError(f, ret, idx) {
				var fixes []analysis.SuggestedFix
				if len(ret.Results) == f.Sig.Results().Len() {
					// Return the context's error where the loop is left.
					if file := analysisutil.FileOf(s.pass, br.Pos()); file != nil {
						if text, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, types.ExprString(x)+".Err()"); ok {
							edits := []analysis.TextEdit{{Pos: br.Pos(), End: br.End(), NewText: []byte(text)}}
							ok := true
							if s.labelOnlyLeftOnDone(ls, lbl) {
								// Every use of the label becomes a return (each
								// such fix deletes the label identically): drop
								// the label, or it is defined and not used.
								edits = append(edits, analysis.TextEdit{Pos: ls.Pos(), End: ls.Stmt.Pos()})
								switch loopLeftOtherwise(ls.Stmt) {
								case leftNever:
									// `for { ... }` is then left only by the
									// returns: what followed it up to the
									// return would be unreachable.
									edits = append(edits, analysis.TextEdit{Pos: ls.End(), End: ret.End()})
								case leftUnknown:
									ok = false
								}
							}
							if ok {
								fixes = append(fixes, analysis.SuggestedFix{
									Message:   "Return the context's error",
									TextEdits: edits,
								})
							}
						}
					}
				}
				s.rep.Report(analysis.Diagnostic{
					Pos:            br.Pos(),
					End:            br.End(),
					Message:        fmt.Sprintf("when %s is done this leaves the loop for a return of a nil error, so %s reports success for work that was canceled", types.ExprString(x), f.Name()),
					Related:        []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the cancellation becomes nil here"}},
					SuggestedFixes: fixes,
				})
			}
			return
		}
		return
	}
}

// checkTestBreak reports a cancellation test whose branch breaks out of a
// loop, labelled or not, when the statements after the loop reach a
// return of a nil error without looking at the context again:
//
//	for _, it := range items {
//		if err := work(ctx, it); err != nil {
//			if errors.Is(err, context.Canceled) { break }
//			return err
//		}
//	}
//	return nil
func (s *state) checkTestBreak(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt, br *ast.BranchStmt, t ctxflow.CancelTest) {
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 || s.quiet[f] {
		return
	}
	for _, st := range n.Body.List[:len(n.Body.List)-1] {
		if s.res.ChecksCancel(st) || s.boundWorkIn(st) {
			return
		}
	}
	loop, ret := s.breakToNilReturn(cur, f, br)
	if ret == nil {
		return
	}
	what := "the context has ended"
	errText := ""
	if t.Err != nil {
		what = types.ExprString(t.Err) + " is a cancellation"
		errText = types.ExprString(t.Err)
	} else if t.Ctx != nil {
		errText = types.ExprString(t.Ctx) + ".Err()"
	}
	s.rep.Report(analysis.Diagnostic{
		Pos:            n.Pos(),
		End:            n.Cond.End(),
		Message:        fmt.Sprintf("when %s this branch leaves the loop for a return of a nil error, so %s reports success for work that was canceled", what, f.Name()),
		Related:        []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the cancellation becomes nil here"}},
		SuggestedFixes: s.breakReturnFix(f, br, loop, ret, errText),
	})
}

// breakReturnFix replaces an unlabelled break out of loop by a return of
// errText. When that break was the only way out of a `for {}`, what
// followed the loop up to ret would be unreachable, and goes too; a loop
// also left by a labelled break or a goto gets no fix.
func (s *state) breakReturnFix(f *ctxflow.Func, br *ast.BranchStmt, loop ast.Stmt, ret *ast.ReturnStmt, errText string) []analysis.SuggestedFix {
	if br.Label != nil || errText == "" || len(ret.Results) != f.Sig.Results().Len() {
		return nil
	}
	file := analysisutil.FileOf(s.pass, br.Pos())
	if file == nil {
		return nil
	}
	text, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, errText)
	if !ok {
		return nil
	}
	edits := []analysis.TextEdit{{Pos: br.Pos(), End: br.End(), NewText: []byte(text)}}
	switch otherExits(loop, br) {
	case leftNever:
		edits = append(edits, analysis.TextEdit{Pos: loop.End(), End: ret.End()})
	case leftUnknown:
		return nil
	}
	return []analysis.SuggestedFix{{Message: "Return the cancellation", TextEdits: edits}}
}

// otherExits says how loop is left apart from the unlabelled break br: by
// its condition or range, by another unlabelled break of its own
// (leftOtherwise), by nothing (leftNever), or by a labelled break or a
// goto, whose target is not worked out (leftUnknown).
func otherExits(loop ast.Stmt, br *ast.BranchStmt) int { return loopExits(loop, br, true) }

// breakToNilReturn follows the break br at cur out of the loop it leaves
// (labelled or not; a break that leaves a switch or select, or a literal,
// leaves none) to the statements after that loop: when they reach a return
// of a nil error without looking at the context or doing context-bound
// work, it returns the loop and that return.
func (s *state) breakToNilReturn(cur inspector.Cursor, f *ctxflow.Func, br *ast.BranchStmt) (ast.Stmt, *ast.ReturnStmt) {
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return nil, nil
	}
	var lbl *types.Label
	if br.Label != nil {
		lbl, _ = s.info.Uses[br.Label].(*types.Label)
		if lbl == nil {
			return nil, nil
		}
	}
	// The statement the break leaves: the labelled one, or the innermost
	// for, range, switch or select around it.
	var left inspector.Cursor
	for c := cur.Parent(); c.Valid() && c.Node() != f.Body; c = c.Parent() {
		if _, ok := c.Node().(*ast.FuncLit); ok {
			return nil, nil
		}
		if lbl != nil {
			if ls, ok := c.Node().(*ast.LabeledStmt); ok && s.info.Defs[ls.Label] == lbl {
				left = c
				break
			}
			continue
		}
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			left = c
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			return nil, nil // it leaves the switch, not the loop
		}
		if left.Valid() {
			break
		}
	}
	if !left.Valid() {
		return nil, nil
	}
	var loop ast.Stmt
	if ls, ok := left.Node().(*ast.LabeledStmt); ok {
		switch ls.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loop = ls.Stmt
		default:
			return nil, nil
		}
	} else {
		loop = left.Node().(ast.Stmt)
		if p, ok := left.Parent().Node().(*ast.LabeledStmt); ok && p.Stmt == left.Node() {
			left = left.Parent()
		}
	}
	for sib, ok := left.NextSibling(); ok; sib, ok = sib.NextSibling() {
		if s.res.ChecksCancel(sib.Node()) || s.boundWorkIn(sib.Node()) {
			return nil, nil
		}
		ret, ok := sib.Node().(*ast.ReturnStmt)
		if !ok {
			continue
		}
		if !s.returnsNilError(f, ret, idx) {
			return nil, nil
		}
		return loop, ret
	}
	return nil, nil
}

// checkFailBreak reports a failure branch of an error that may carry
// cancellation which only logs it and breaks out of the loop, when the
// statements after the loop reach a return of a nil error without
// looking at the context, doing context-bound work or reading the error
// again:
//
//	for p, err := range store.Scan(ctx, prefix) {
//		if err != nil {
//			break
//		}
//		pairs = append(pairs, p)
//	}
//	return pairs, nil
//
// The caller gets what was gathered before the cancellation as the whole
// answer, as `if err != nil { return pairs, nil }` would give it.
func (s *state) checkFailBreak(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt, br *ast.BranchStmt, errVar *types.Var, errExpr *ast.Ident) {
	if s.quiet[f] || br.Tok != token.BREAK || n.Else != nil {
		return
	}
	body := &ast.BlockStmt{List: n.Body.List[:len(n.Body.List)-1]}
	if !s.logOnly(body) {
		return // a fallback, a flag, a stored error: handled
	}
	loop, ret := s.breakToNilReturn(cur, f, br)
	if ret == nil || s.keptPastLoop(f, loop, errExpr) || s.readLater(f, loop, errVar) {
		return
	}
	if idx := analysisutil.ErrorResult(f.Sig); idx >= 0 && idx < len(ret.Results) {
		if id, ok := ast.Unparen(ret.Results[idx]).(*ast.Ident); ok && id.Name == errVar.Name() && s.info.Uses[id] != errVar {
			// v, err := get(ctx, k) shadows the err returned after the
			// loop: checkShadow reports the declaration, one finding.
			return
		}
	}
	outcome := "reports success for work that was cut short"
	for i, r := range ret.Results {
		if i != analysisutil.ErrorResult(f.Sig) && !s.zeroExpr(r) {
			outcome = "returns what it gathered before the cancellation as if the work had finished"
		}
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: n.Pos(),
		End: n.Cond.End(),
		Message: fmt.Sprintf("%s may carry the cancellation of %s and this branch leaves the loop for a return of a nil error, so %s %s",
			errExpr.Name, orCaller(s.ctxFor(f, nil)), f.Name(), outcome),
		Related:        []analysis.RelatedInformation{{Pos: ret.Pos(), End: ret.End(), Message: "the error becomes nil here"}},
		SuggestedFixes: s.breakReturnFix(f, br, loop, ret, errExpr.Name),
	})
}

// labelOnlyLeftOnDone reports whether every use of lbl, the label of ls, is
// a `break lbl` that is a statement of a `case <-ctx.Done():` clause of a
// context the check reports (so that checkBreakOut rewrites each of them
// into a return, leaving the label unused).
func (s *state) labelOnlyLeftOnDone(ls *ast.LabeledStmt, lbl *types.Label) bool {
	ok := true
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		ast.Inspect(n, func(m ast.Node) bool {
			if !ok {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if m.Label != nil && s.info.Uses[m.Label] == lbl {
					ok = false // a use outside a Done clause's statement list
				}
			case *ast.CommClause:
				var x ast.Expr
				if m.Comm != nil {
					x = s.res.DoneContext(m.Comm)
				}
				fixed := x != nil && s.ctxOwned(x) && !s.res.Detached(x)
				for _, st := range m.Body {
					if br, isBr := st.(*ast.BranchStmt); isBr && br.Tok == token.BREAK && br.Label != nil && s.info.Uses[br.Label] == lbl {
						if !fixed {
							ok = false
						}
						continue
					}
					visit(st)
				}
				return false
			}
			return true
		})
	}
	visit(ls.Stmt)
	return ok
}

const (
	leftOtherwise = iota // by its condition, a range's end or an unlabeled break
	leftNever            // a `for {}` with no unlabeled break of its own
	leftUnknown          // a goto in the body: reachability is not worked out
)

// loopLeftOtherwise says how loop is left apart from its labeled breaks.
func loopLeftOtherwise(loop ast.Stmt) int { return loopExits(loop, nil, false) }

// loopExits says how loop is left apart from the break skip (nil: none)
// and, unless labelled is set, its labelled breaks; with labelled set, a
// labelled break makes the answer leftUnknown, as a goto always does.
func loopExits(loop ast.Stmt, skip *ast.BranchStmt, labelled bool) int {
	fs, ok := loop.(*ast.ForStmt)
	if !ok || fs.Cond != nil {
		return leftOtherwise
	}
	res := leftNever
	var walk func(n ast.Node, nested bool)
	walk = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				switch {
				case m.Tok == token.GOTO, labelled && m.Tok == token.BREAK && m.Label != nil:
					res = leftUnknown
				case m.Tok == token.BREAK && m.Label == nil && !nested && m != skip && res == leftNever:
					res = leftOtherwise
				}
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				if m != n {
					walk(m, true)
					return false
				}
			}
			return true
		})
	}
	walk(fs.Body, false)
	return res
}

// stopErrFix replaces the nil at e with stop.Err(ctx) when the package
// already uses the runtime.
func (s *state) stopErrFix(e ast.Expr, ctx ast.Expr) []analysis.SuggestedFix {
	if !s.rt {
		return nil
	}
	file := analysisutil.FileOf(s.pass, e.Pos())
	if file == nil {
		return nil
	}
	name, edits := analysisutil.AddImport(s.info, file, e.Pos(), ctxflow.RuntimeModule+"/stop")
	return []analysis.SuggestedFix{{
		Message:   "Return stop.Err of the context",
		TextEdits: append([]analysis.TextEdit{{Pos: e.Pos(), End: e.End(), NewText: []byte(name + ".Err(" + types.ExprString(ctx) + ")")}}, edits...),
	}}
}

// returnsNilError reports whether ret returns a nil error in result idx of
// f: `return ..., nil`, or a bare return while the named error result is
// nil (see namedNilAt).
// oneShotOnField reports whether x is a context field of f's receiver
// (u.ctx) waited on by a select outside any loop of f, a method that is
// not a teardown: one operation (a Write, a Send) that gives up when the
// receiver's context ends, not a loop that serves for the receiver's
// lifetime and stops cleanly with it.
func (s *state) oneShotOnField(cur inspector.Cursor, f *ctxflow.Func, x ast.Expr) bool {
	if f.Obj == nil || f.Sig.Recv() == nil || s.inTeardown(f) || analysisutil.ErrorResult(f.Sig) < 0 {
		return false
	}
	sel, ok := ast.Unparen(x).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if id, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || s.info.Uses[id] != f.Sig.Recv() {
		return false
	}
	for c := cur.Parent(); c.Node() != nil && c.Node() != f.Node; c = c.Parent() {
		switch c.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
			return false
		}
	}
	return true
}

// checkClaimedResult reports a return in the Done clause of a one-shot
// operation on the receiver's context (oneShotOnField) that gives a nil
// error together with a result that is not a zero value (`return len(p),
// nil` from a Write whose part was dropped): the caller is told the
// operation was done although it was abandoned. A zero result with a nil
// error (`return nil, nil`: nothing, stopped) is a convention some types
// document and is not judged.
func (s *state) checkClaimedResult(cur inspector.Cursor, f *ctxflow.Func, cc *ast.CommClause, x ast.Expr) {
	idx := analysisutil.ErrorResult(f.Sig)
	for _, st := range cc.Body {
		ret, ok := st.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != f.Sig.Results().Len() || len(ret.Results) < 2 || !isNilExpr(s.info, ret.Results[idx]) {
			continue
		}
		claimed := false
		for i, r := range ret.Results {
			if i != idx && !s.zeroExpr(r) {
				claimed = true
			}
		}
		if !claimed {
			continue
		}
		ctx := types.ExprString(x)
		s.rep.Report(analysis.Diagnostic{
			Pos: ret.Pos(), End: ret.End(),
			Message: fmt.Sprintf("%s returns a result with a nil error when %s is done, so its caller is told the operation was done although it was abandoned", f.Name(), ctx),
			SuggestedFixes: []analysis.SuggestedFix{{
				Message:   "Return the context's error",
				TextEdits: []analysis.TextEdit{{Pos: ret.Results[idx].Pos(), End: ret.Results[idx].End(), NewText: []byte(ctx + ".Err()")}},
			}},
		})
	}
}

func (s *state) returnsNilError(f *ctxflow.Func, ret *ast.ReturnStmt, idx int) bool {
	if len(ret.Results) == 0 && f.Sig.Results().Len() > 0 {
		return s.namedNilAt(f, ret, f.Sig.Results().At(idx))
	}
	if len(ret.Results) != f.Sig.Results().Len() {
		return false
	}
	e := ret.Results[idx]
	if isNilExpr(s.info, e) {
		return true
	}
	// return indexed, err where err is nil on every path to the return
	// (its failure returned earlier): a nil all the same.
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, ok := s.info.Uses[id].(*types.Var); ok {
			if g := s.graphs.Func(f.Node); g != nil && g.NilAt(v, ret) {
				return true
			}
		}
	}
	return false
}

func lastStmt(b *ast.BlockStmt) ast.Stmt {
	if b == nil || len(b.List) == 0 {
		return nil
	}
	return b.List[len(b.List)-1]
}

// endsFlow reports whether st leaves the enclosing block for good: a
// return, a break or goto, or a call that never returns (panic,
// log.Fatalf, os.Exit).
func endsFlow(info *types.Info, st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return st.Tok == token.BREAK || st.Tok == token.GOTO
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok {
			return analysisutil.NoReturn(info, call)
		}
	}
	return false
}

// reportWalkSkip reports a skip sentinel returned from a Done clause of a
// walk callback (`case <-ctx.Done(): return filepath.SkipAll`): the walk
// ends and returns nil, so its caller sees a finished walk. Not reported
// when the function that calls the walk looks at the context after it.
func (s *state) reportWalkSkip(cur inspector.Cursor, f *ctxflow.Func, ret *ast.ReturnStmt, e, x ast.Expr) {
	var walk *ast.CallExpr
	for lit := range cur.Enclosing((*ast.FuncLit)(nil)) {
		walk, _ = lit.Parent().Node().(*ast.CallExpr)
		break
	}
	if walk == nil || f.Parent == nil {
		return
	}
	if g := s.graphs.Func(f.Parent.Node); g != nil {
		if p, ok := g.Locate(walk); ok {
			if _, later := g.Reaches(p.Next(), func(n ast.Node) bool { return s.res.ChecksCancel(n) }, nil); later {
				return
			}
		}
	}
	ctx := types.ExprString(x)
	s.rep.Report(analysis.Diagnostic{
		Pos: ret.Pos(),
		End: ret.End(),
		Message: fmt.Sprintf("when %s is done this returns %s, which %s turns into a nil error: the walk's caller sees it finish although it was canceled",
			ctx, types.ExprString(e), calleeName(walk)),
		SuggestedFixes: []analysis.SuggestedFix{{
			Message:   "Return the context's error",
			TextEdits: []analysis.TextEdit{{Pos: e.Pos(), End: e.End(), NewText: []byte(ctx + ".Err()")}},
		}},
	})
}
