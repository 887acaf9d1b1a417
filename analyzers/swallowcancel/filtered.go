package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkFiltered reports a failure branch that lets cancellation through to
// a success return with the call's results:
//
//	primes, err := generate(ctx, n)
//	if err != nil && !errors.Is(err, context.Canceled) {
//		return nil, err
//	}
//	return &Key{Primes: primes}, nil // a canceled generation is a key
//
// The test excludes the cancellation from the failure branch, so a canceled
// call falls through to the code that assumes it succeeded, and the caller
// receives values built from a half-done call with a nil error. Reported
// when the path from the test to the next return makes no context-bound call,
// tests no context, reads the error only in logs, and the return gives a nil
// error with at least one result that is not a zero value: a function that
// returns nothing but its error (a Run that treats cancellation as its
// stop) is a convention, not a loss. It reports whether the condition had
// this form (and so needs no other test).
func (s *state) checkFiltered(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt) bool {
	errVar, errExpr, excl := s.filteredTest(n.Cond)
	if errVar == nil {
		return s.checkOwnStopFilter(cur, f, n)
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if n.Else != nil || idx < 0 || !endsFlow(s.info, lastStmt(n.Body)) {
		return true
	}
	if s.quiet[f] || s.groupGoroutine(f) || s.inTeardown(f) {
		return true
	}
	ret, between, ok := s.nextReturn(cur, f)
	if !ok || len(ret.Results) != f.Sig.Results().Len() {
		return true
	}
	// Either the return hands the canceled call's results on with a nil
	// error, or a function that returns only its error records them: its
	// error is a call given one of those results (save(ctx, res)), which
	// stores a half-done result as a finished one.
	var records *ast.CallExpr
	if f.Sig.Results().Len() < 2 {
		records = s.recordsResults(cur, n, errVar, ret)
		if records == nil {
			return true
		}
	} else if !s.returnsNilError(f, ret, idx) || s.allZero(ret, idx) {
		return true
	}
	for _, st := range between {
		if s.boundWorkIn(st) || s.res.ChecksCancel(st) || analysisutil.UsedOutsideLogs(s.info, st, errVar) && !s.logsWhenSet(st, errVar) {
			return true
		}
	}
	if analysisutil.UsedOutsideLogs(s.info, ret, errVar) {
		return true
	}
	var fixes []analysis.SuggestedFix
	if _, negated := ast.Unparen(excl).(*ast.UnaryExpr); negated && !s.lastImportUse(excl) {
		// (err != context.Canceled is foldedtimeout's to fix first: it
		// becomes !errors.Is(err, context.Canceled), and this fix then
		// applies in the next round.)
		// Keep `err != nil` alone: the failure branch then returns the
		// cancellation like any other failure.
		fixes = []analysis.SuggestedFix{{
			Message:   "Return the cancellation too",
			TextEdits: []analysis.TextEdit{{Pos: n.Cond.Pos(), End: n.Cond.End(), NewText: []byte(errExpr.Name + " != nil")}},
		}}
	}
	msg := fmt.Sprintf("when %s is a cancellation this test lets it past the failure branch, so %s returns results built from a canceled call with a nil error",
		errExpr.Name, f.Name())
	rel := analysis.RelatedInformation{Pos: ret.Pos(), End: ret.End(), Message: "the canceled call's results are returned as a success here"}
	if records != nil {
		msg = fmt.Sprintf("when %s is a cancellation this test lets it past the failure branch, so %s records the canceled call's results with %s as if it had finished and does not return the cancellation",
			errExpr.Name, f.Name(), types.ExprString(records.Fun))
		rel = analysis.RelatedInformation{Pos: records.Pos(), End: records.End(), Message: "the canceled call's results are recorded as a success here"}
	}
	s.rep.Report(analysis.Diagnostic{
		Pos:            n.Pos(),
		End:            n.Cond.End(),
		Message:        msg,
		Related:        []analysis.RelatedInformation{rel},
		SuggestedFixes: fixes,
	})
	return true
}

// recordsResults returns the call that ret, the return of a function whose
// only result is its error, makes with another result of the call that
// assigned errVar before n (res, err := run(ctx) ... return save(ctx, res)),
// or nil.
func (s *state) recordsResults(cur inspector.Cursor, n *ast.IfStmt, errVar *types.Var, ret *ast.ReturnStmt) *ast.CallExpr {
	as, call := sourceAssign(cur, n, errVar, s.info)
	if call == nil || len(ret.Results) != 1 {
		return nil
	}
	rc, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	var others []types.Object
	for _, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if obj := s.info.ObjectOf(id); obj != nil && obj != errVar {
			others = append(others, obj)
		}
	}
	for _, arg := range rc.Args {
		for _, o := range others {
			if analysisutil.ReferencesObject(s.info, arg, o) {
				return rc
			}
		}
	}
	return nil
}

// logsWhenSet reports whether st is `if v != nil { <logging> }` without an
// else: it reads v only to log it.
func (s *state) logsWhenSet(st ast.Stmt, v *types.Var) bool {
	is, ok := st.(*ast.IfStmt)
	if !ok || is.Init != nil || is.Else != nil {
		return false
	}
	tv, _ := s.testedCarrier(is.Cond)
	return tv == v && s.logOnly(is.Body) && !analysisutil.UsedOutsideLogs(s.info, is.Body, v)
}

// filteredTest matches `err != nil && !<cancellation test of err>` (either
// order), and `err != context.Canceled` in place of the negated test. It
// returns the error variable, its identifier in `err != nil`, and the
// excluding operand.
func (s *state) filteredTest(cond ast.Expr) (*types.Var, *ast.Ident, ast.Expr) {
	c, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.LAND {
		return nil, nil, nil
	}
	for _, pair := range [2][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		v, id := s.testedCarrier(pair[0])
		if v == nil || !s.filtersCancel(pair[1], v) {
			continue
		}
		return v, id, pair[1]
	}
	return nil, nil, nil
}

// filtersCancel reports whether e holds only when v is not a cancellation:
// `!errors.Is(v, context.Canceled)` (any cancellation test of v, negated)
// or `v != context.Canceled`.
func (s *state) filtersCancel(e ast.Expr, v *types.Var) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if e.Op != token.NOT {
			return false
		}
		t, ok := s.res.CancelTestOf(e.X)
		if !ok || t.Err == nil {
			return false
		}
		id, ok := ast.Unparen(t.Err).(*ast.Ident)
		return ok && s.info.ObjectOf(id) == v
	case *ast.BinaryExpr:
		if e.Op != token.NEQ {
			return false
		}
		x, y := ast.Unparen(e.X), ast.Unparen(e.Y)
		if id, ok := y.(*ast.Ident); ok && s.info.ObjectOf(id) == v {
			x, y = y, x
		}
		id, ok := x.(*ast.Ident)
		if !ok || s.info.ObjectOf(id) != v {
			return false
		}
		return ctxflow.ContextSentinel(s.info, y) != ""
	}
	return false
}

// nextReturn returns the return statement control reaches from the
// statement at cur when nothing in between branches: the first return
// among the statements after it, in its block or the blocks around it, and
// the statements passed on the way. It gives up at a loop, a switch or a
// select around cur (another iteration or case may return something else)
// and at statements that may leave the straight line (a branch, a goto).
func (s *state) nextReturn(cur inspector.Cursor, f *ctxflow.Func) (*ast.ReturnStmt, []ast.Stmt, bool) {
	var between []ast.Stmt
	for c := cur; c.Node() != f.Body; c = c.Parent() {
		switch c.Parent().Node().(type) {
		case *ast.BlockStmt:
		case *ast.IfStmt:
			continue // the if around a block: its siblings come next
		default:
			return nil, nil, false
		}
		for sib, ok := c.NextSibling(); ok; sib, ok = sib.NextSibling() {
			st, isStmt := sib.Node().(ast.Stmt)
			if !isStmt {
				continue
			}
			switch st := st.(type) {
			case *ast.ReturnStmt:
				return st, between, true
			case *ast.BranchStmt, *ast.LabeledStmt:
				return nil, nil, false
			}
			between = append(between, st)
		}
	}
	return nil, nil, false
}

// allZero reports whether every result of ret other than the error at idx
// is a zero value: nil, a zero literal, or an empty composite literal.
func (s *state) allZero(ret *ast.ReturnStmt, idx int) bool {
	for i, r := range ret.Results {
		if i == idx {
			continue
		}
		if !s.zeroExpr(r) {
			return false
		}
	}
	return true
}

func (s *state) zeroExpr(e ast.Expr) bool {
	e = ast.Unparen(e)
	if isNilExpr(s.info, e) {
		return true
	}
	if cl, ok := e.(*ast.CompositeLit); ok {
		return len(cl.Elts) == 0
	}
	tv, ok := s.info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	switch tv.Value.Kind() {
	case constant.Bool:
		return !constant.BoolVal(tv.Value)
	case constant.String:
		return constant.StringVal(tv.Value) == ""
	case constant.Int, constant.Float, constant.Complex:
		return constant.Sign(tv.Value) == 0
	}
	return false
}

// reportShadowed reports a test that lets context.Canceled of name past
// the failure branch, to the nil-error return ret, in a function that
// replaced its caller's context by a child it cancels itself: the filter
// means to drop the function's own stop, but drops the caller's
// cancellation with it, and nothing is left to tell them apart.
func (s *state) reportShadowed(f *ctxflow.Func, n *ast.IfStmt, sp *shadowedParent, name string, ret ast.Node) {
	ctx := sp.param.Name()
	s.rep.Report(analysis.Diagnostic{
		Pos: n.Pos(),
		End: n.Cond.End(),
		Message: fmt.Sprintf("this test drops context.Canceled from %s to stop after the function's own %s(), but %s was replaced by its child, so a cancellation by %s's caller is dropped too and %s returns a nil error for work it did not finish; keep the caller's context in its own variable and return its Err() first",
			name, types.ExprString(sp.cancel.Fun), ctx, f.Name(), f.Name()),
		Related: []analysis.RelatedInformation{
			{Pos: sp.derive.Pos(), End: sp.derive.End(), Message: ctx + " is replaced by its child here, so the caller's context is out of reach"},
			{Pos: sp.cancel.Pos(), End: sp.cancel.End(), Message: "the function cancels the child itself here"},
			{Pos: ret.Pos(), End: ret.End(), Message: "a nil error is returned here"},
		},
	})
}

// checkOwnStopFilter reports a filter of context.Canceled (`err != nil &&
// !errors.Is(err, context.Canceled)`, on any error: the test itself says
// the author expects a cancellation in it) whose failure branch leaves and
// whose fall-through reaches a nil-error return, in a function that
// replaced its caller's context by a child it cancels itself before the
// test (parentShadowed). It reports whether it did.
func (s *state) checkOwnStopFilter(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt) bool {
	c, ok := ast.Unparen(n.Cond).(*ast.BinaryExpr)
	if !ok || c.Op != token.LAND || n.Else != nil || !endsFlow(s.info, lastStmt(n.Body)) {
		return false
	}
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return false
	}
	for _, pair := range [2][2]ast.Expr{{c.X, c.Y}, {c.Y, c.X}} {
		v, id := s.nonNilTest(pair[0])
		if v == nil || !s.filtersCancel(pair[1], v) {
			continue
		}
		sp := s.parentShadowed(f, n.Cond)
		if sp == nil {
			return false
		}
		ret, _, ok := s.nextReturn(cur, f)
		if !ok || len(ret.Results) != f.Sig.Results().Len() || !s.returnsNilError(f, ret, idx) {
			return false
		}
		s.reportShadowed(f, n, sp, id.Name, ret)
		return true
	}
	return false
}

// nonNilTest matches `v != nil` (either order) for an error variable v.
func (s *state) nonNilTest(e ast.Expr) (*types.Var, *ast.Ident) {
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return nil, nil
	}
	x, y := b.X, b.Y
	if isNilExpr(s.info, x) {
		x, y = y, x
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || !isNilExpr(s.info, y) {
		return nil, nil
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok || !analysisutil.IsError(v.Type()) {
		return nil, nil
	}
	return v, id
}
