package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkDrop handles a call whose results are discarded: a bare call
// statement (as == nil) or an assignment whose error lands in _.
func (s *state) checkDrop(cur inspector.Cursor, call *ast.CallExpr, as *ast.AssignStmt) {
	sig, _ := s.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	if sig == nil {
		return
	}
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 {
		return
	}
	if as != nil {
		lhs := as.Lhs
		if sig.Results().Len() != len(lhs) {
			return
		}
		if id, ok := lhs[idx].(*ast.Ident); !ok || id.Name != "_" {
			return
		}
		if s.errorKeptBy(lhs, idx) {
			return
		}
	}
	if s.isCleanup(calleeShortName(s.info, call)) || !s.res.CallMayCarryCancel(call, idx) {
		return
	}
	f := s.res.Enclosing(cur)
	if f == nil || s.inTeardown(f) {
		return
	}
	stmt := cur.Node().(ast.Stmt)
	if loop := enclosingLoop(cur); loop != nil {
		if s.quiet[f] || analysisutil.IsRetryLoop(s.info, loop) || s.inRetryLoop(cur) || s.loopChecksCancel(loop) || s.checksAfterLoop(cur, f, loop) {
			return // retrycancel's, or the loop stops by itself
		}
		if s.onFailurePath(cur) {
			return // the loop is left with the primary error
		}
		if as != nil && analysisutil.ErrorResult(f.Sig) < 0 {
			// `_ = c.Close(ctx, x)` for each x, with no error to return:
			// a decision, as outside loops.
			return
		}
		ctx := s.ctxFor(f, call)
		s.rep.Report(analysis.Diagnostic{
			Pos: call.Pos(),
			End: call.End(),
			Message: fmt.Sprintf("the error of %s may carry the cancellation of %s and is dropped, so %s keeps calling it after %s is canceled",
				calleeName(call), orCaller(ctx), describeLoop(loop), orCaller(ctx)),
			SuggestedFixes: s.stopLoopFixes(f, ctx, stmt.End(), false),
		})
		return
	}
	if s.quiet[f] || s.onFailurePath(cur) {
		return
	}
	if as == nil && isLastStmt(cur, f) || s.laterBoundWork(cur, f) {
		return // a later context-bound call reports the cancellation
	}
	if as != nil && s.earlierBoundWork(cur, f) {
		// `_ = cache.Delete(ctx, k)` after the main work succeeded: an
		// explicit, best-effort side effect; the result stands.
		return
	}
	if unread := s.unreadResult(f); analysisutil.ErrorResult(f.Sig) < 0 || unread {
		// No error to return, or none that anyone reads (a group literal
		// whose Wait results are discarded): only a bare call, an
		// oversight rather than a decision (`_ =`), followed by work that
		// assumes it succeeded (sem.Acquire(ctx, 1) then the guarded work)
		// is reported.
		if as != nil || f.Sig.Results().Len() > 0 && !unread {
			return
		}
		if (s.goLit[f.Node] || unread) && !releasedAfter(cur, call) {
			// A goroutine has no caller to mislead: only going on to
			// release what the failed call did not acquire is wrong.
			return
		}
		ctx := s.ctxFor(f, call)
		var fixes []analysis.SuggestedFix
		if src := s.source(call); src != "" && s.bareReturnFixable(f) {
			fixes = []analysis.SuggestedFix{{
				Message:   "Return when the call fails",
				TextEdits: []analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte("if err := " + src + "; err != nil {\n" + s.indentAt(call.Pos()) + "\treturn\n" + s.indentAt(call.Pos()) + "}")}},
			}}
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: call.Pos(),
			End: call.End(),
			Message: fmt.Sprintf("the error of %s may carry the cancellation of %s and is dropped, so %s goes on as if the call succeeded after %s is canceled",
				calleeName(call), orCaller(ctx), f.Name(), orCaller(ctx)),
			SuggestedFixes: fixes,
		})
		return
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: call.Pos(),
		End: call.End(),
		Message: fmt.Sprintf("the error of %s may carry the caller's cancellation and is dropped, so %s goes on and can return success after its context is canceled",
			calleeName(call), f.Name()),
		SuggestedFixes: s.returnDropFixes(cur, f, call, as, idx),
	})
}

// errorKeptBy reports whether another result the assignment keeps has an
// `Err() error` method: `rows, _ := conn.Query(ctx, q)` leaves the error
// to rows.Err (pgx documents this), and whoever iterates the rows reads it
// there; checkIterErr reports a loop that does not.
func (s *state) errorKeptBy(lhs []ast.Expr, idx int) bool {
	for i, e := range lhs {
		if id, ok := e.(*ast.Ident); ok && i != idx && id.Name != "_" {
			if t := s.info.TypeOf(id); t != nil && hasErrMethod(t) {
				return true
			}
		}
	}
	return false
}

// releasedAfter reports whether the statement after the one at cur defers
// a call on the same receiver as call: `sem.Acquire(ctx, 1)` then
// `defer sem.Release(1)`.
func releasedAfter(cur inspector.Cursor, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	next, ok := cur.NextSibling()
	if !ok {
		return false
	}
	d, ok := next.Node().(*ast.DeferStmt)
	if !ok {
		return false
	}
	dsel, ok := ast.Unparen(d.Call.Fun).(*ast.SelectorExpr)
	return ok && types.ExprString(dsel.X) == types.ExprString(sel.X)
}

func orCaller(ctx string) string {
	if ctx == "" {
		return "the caller's context"
	}
	return ctx
}

// onFailurePath reports whether the statement at cur is followed, in its
// block or the blocks around it, by the return of a non-nil error: a
// secondary error dropped while the primary one is propagated is not
// swallowed. The walk stops at the nearest return at the end of a block,
// and at loops and function boundaries.
func (s *state) onFailurePath(cur inspector.Cursor) bool {
	for c := cur; ; c = c.Parent() {
		var list []ast.Stmt
		switch p := c.Parent().Node().(type) {
		case *ast.BlockStmt:
			list = p.List
		case *ast.CaseClause:
			list = p.Body
		case *ast.CommClause:
			list = p.Body
		case *ast.IfStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.LabeledStmt:
			continue
		default:
			return false
		}
		if len(list) == 0 {
			continue
		}
		ret, ok := list[len(list)-1].(*ast.ReturnStmt)
		if !ok {
			continue
		}
		if len(ret.Results) == 0 {
			return false
		}
		last := ret.Results[len(ret.Results)-1]
		return !isNilExpr(s.info, last) && analysisutil.IsError(s.info.TypeOf(last))
	}
}

// isLastStmt reports whether the statement at cur is the last one its
// function runs: nothing follows it in any enclosing block, or a bare
// return does (`s.processRPC(ctx, st); return`).
func isLastStmt(cur inspector.Cursor, f *ctxflow.Func) bool {
	if next, ok := cur.NextSibling(); ok {
		if ret, ok := next.Node().(*ast.ReturnStmt); ok && len(ret.Results) == 0 && f.Sig.Results().Len() == 0 {
			return true
		}
	}
	for c := cur; c.Node() != f.Body; c = c.Parent() {
		switch p := c.Parent().Node().(type) {
		case *ast.BlockStmt:
			if p.List[len(p.List)-1] != c.Node() {
				return false
			}
		case *ast.ForStmt, *ast.RangeStmt:
			return false
		}
	}
	return true
}

// laterBoundWork reports whether, after the statement at cur, the function
// makes another context-bound call whose error it keeps, or tests the
// context: a cancellation dropped here surfaces there.
func (s *state) laterBoundWork(cur inspector.Cursor, f *ctxflow.Func) bool {
	for c := cur; c.Node() != f.Body; c = c.Parent() {
		if _, ok := c.Parent().Node().(*ast.BlockStmt); !ok {
			if _, ok := c.Parent().Node().(*ast.CaseClause); !ok {
				continue
			}
		}
		for sib, ok := c.NextSibling(); ok; sib, ok = sib.NextSibling() {
			if s.boundWorkIn(sib.Node()) {
				return true
			}
		}
	}
	return false
}

// earlierBoundWork reports whether, before the statement at cur, the
// function made a context-bound call whose error it kept.
func (s *state) earlierBoundWork(cur inspector.Cursor, f *ctxflow.Func) bool {
	for c := cur; c.Node() != f.Body; c = c.Parent() {
		for sib, ok := c.PrevSibling(); ok; sib, ok = sib.PrevSibling() {
			if _, isStmt := sib.Node().(ast.Stmt); isStmt && s.boundWorkIn(sib.Node()) {
				return true
			}
		}
	}
	return false
}

// boundWorkIn reports whether n (outside function literals) tests a
// context or makes a context-bound call whose error result is used.
func (s *state) boundWorkIn(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			if _, ok := n.X.(*ast.CallExpr); ok {
				// A bare call drops its error: look only inside its arguments.
				for _, a := range n.X.(*ast.CallExpr).Args {
					found = found || s.boundWorkIn(a)
				}
				return false
			}
		case *ast.AssignStmt:
			if call, ok := droppedCall(n); ok && isBlankErr(s.info, n, call) {
				return false
			}
		case *ast.CallExpr:
			if s.res.ChecksCancel(n) {
				found = true
				return false
			}
			sig, _ := s.info.TypeOf(n.Fun).Underlying().(*types.Signature)
			if idx := analysisutil.ErrorResult(sig); idx >= 0 && s.res.CallMayCarryCancel(n, idx) {
				found = true
			}
		case *ast.SelectorExpr:
			if s.res.ChecksCancel(n) {
				found = true
			}
		}
		return !found
	})
	return found
}

// isBlankErr reports whether the assignment drops call's error into _.
func isBlankErr(info *types.Info, as *ast.AssignStmt, call *ast.CallExpr) bool {
	sig, _ := info.TypeOf(call.Fun).Underlying().(*types.Signature)
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 || sig.Results().Len() != len(as.Lhs) {
		return false
	}
	id, ok := as.Lhs[idx].(*ast.Ident)
	return ok && id.Name == "_"
}

func isNilExpr(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// stopLoopFixes returns fixes that insert, at pos, a test that stops the
// loop once ctx has ended: by returning its error when f returns one, or
// plainly when f returns nothing. inBlock says pos is just after a '{'.
func (s *state) stopLoopFixes(f *ctxflow.Func, ctx string, pos token.Pos, inBlock bool) []analysis.SuggestedFix {
	return s.stopLoopFixesOr(f, ctx, pos, inBlock, false)
}

// stopLoopFixesOr is stopLoopFixes where canBreak says a break at pos leaves
// the loop and ends f as a return would (see breakEndsGoroutine): used in a
// goroutine literal, where a bare return is not offered.
func (s *state) stopLoopFixesOr(f *ctxflow.Func, ctx string, pos token.Pos, inBlock, canBreak bool) []analysis.SuggestedFix {
	if ctx == "" {
		return nil
	}
	file := analysisutil.FileOf(s.pass, pos)
	if file == nil {
		return nil
	}
	indent := s.indentAt(pos)
	if inBlock {
		indent += "\t"
	}
	// Insert at the end of pos's line, after any trailing comment.
	if tf := s.pass.Fset.File(pos); tf != nil && tf.Line(pos) < tf.LineCount() {
		pos = tf.LineStart(tf.Line(pos)+1) - 1
	}
	build := func(test, errExpr string) (string, bool) {
		if f.Sig.Results().Len() == 0 {
			stmt := "return"
			if !s.bareReturnFixable(f) {
				if !canBreak {
					return "", false
				}
				stmt = "break"
			}
			return fmt.Sprintf("\n%sif %s != nil {\n%s\t%s\n%s}", indent, test, indent, stmt, indent), true
		}
		ret, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, errExpr)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("\n%sif err := %s; err != nil {\n%s\t%s\n%s}", indent, test, indent, ret, indent), true
	}
	var fixes []analysis.SuggestedFix
	if text, ok := build(ctx+".Err()", "err"); ok {
		fixes = append(fixes, analysis.SuggestedFix{
			Message:   "Stop the loop when the context ends",
			TextEdits: []analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}},
		})
	}
	if s.rt && len(fixes) > 0 {
		name, edits := analysisutil.AddImport(s.info, file, pos, ctxflow.RuntimeModule+"/stop")
		if text, ok := build(name+".Err("+ctx+")", "err"); ok {
			fixes = append(fixes, analysis.SuggestedFix{
				Message:   "Stop the loop with stop.Err when the context ends",
				TextEdits: append([]analysis.TextEdit{{Pos: pos, End: pos, NewText: []byte(text)}}, edits...),
			})
		}
	}
	return fixes
}

// breakEndsGoroutine reports whether, in the goroutine literal f with no
// results, a break at cur leaves loop and so ends f: no switch or select
// lies between, and loop is f's last statement.
func (s *state) breakEndsGoroutine(cur inspector.Cursor, f *ctxflow.Func, loop ast.Stmt) bool {
	if !s.goLit[f.Node] || f.Sig.Results().Len() != 0 || len(f.Body.List) == 0 || f.Body.List[len(f.Body.List)-1] != loop {
		return false
	}
	for c := cur.Parent(); c.Valid(); c = c.Parent() {
		switch c.Node().(type) {
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.FuncLit:
			return false
		}
		if c.Node() == loop {
			return true
		}
	}
	return false
}

// returnDropFixes turns a dropped error into a returned one:
//
//	f(ctx)  /  _ = f(ctx)   ->  if err := f(ctx); err != nil { return ..., err }
//	v, _ := f(ctx)          ->  v, err := f(ctx); if err != nil { return ..., err }
func (s *state) returnDropFixes(cur inspector.Cursor, f *ctxflow.Func, call *ast.CallExpr, as *ast.AssignStmt, idx int) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, call.Pos())
	if file == nil {
		return nil
	}
	ret, ok := analysisutil.ReturnWith(file, s.pass.Pkg, f.Sig, "err")
	if !ok {
		return nil
	}
	stmt := cur.Node().(ast.Stmt)
	indent := s.indentAt(stmt.Pos())
	src := s.source(call)
	if src == "" {
		return nil
	}
	// err must be free or an error variable where it is used.
	if _, obj := s.scopeAt(file, stmt.Pos()).LookupParent("err", stmt.Pos()); obj != nil {
		if v, ok := obj.(*types.Var); !ok || !analysisutil.IsErrorInterface(v.Type()) {
			return nil
		}
	} else if as != nil && as.Tok == token.ASSIGN && len(as.Lhs) > 1 {
		return nil // v, err = f(ctx) needs err declared
	}
	var text string
	if as == nil || len(as.Lhs) == 1 {
		// A bare call: one name per result, err at the error's index
		// (`if _, err := fetch(ctx, id); err != nil`).
		names := "err"
		if tuple, ok := s.info.TypeOf(call).(*types.Tuple); ok && as == nil && tuple.Len() > 1 {
			parts := make([]string, tuple.Len())
			for i := range parts {
				parts[i] = "_"
			}
			parts[idx] = "err"
			names = join(parts)
		}
		text = fmt.Sprintf("if %s := %s; err != nil {\n%s\t%s\n%s}", names, src, indent, ret, indent)
	} else {
		lhs := make([]string, len(as.Lhs))
		for i, l := range as.Lhs {
			lhs[i] = types.ExprString(l)
		}
		lhs[idx] = "err"
		text = fmt.Sprintf("%s %s %s\n%sif err != nil {\n%s\t%s\n%s}", join(lhs), as.Tok, src, indent, indent, ret, indent)
	}
	return []analysis.SuggestedFix{{
		Message:   "Return the error",
		TextEdits: []analysis.TextEdit{{Pos: stmt.Pos(), End: stmt.End(), NewText: []byte(text)}},
	}}
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

func (s *state) scopeAt(file *ast.File, pos token.Pos) *types.Scope {
	scope := s.info.Scopes[file]
	if inner := scope.Innermost(pos); inner != nil {
		return inner
	}
	return scope
}

// source returns the text of n as written.
func (s *state) source(n ast.Node) string { return analysisutil.Source(s.pass, n) }

func (s *state) indentAt(pos token.Pos) string { return analysisutil.IndentAt(s.pass, pos) }
