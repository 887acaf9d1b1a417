package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

func (s *state) sentinel(e ast.Expr) string { return ctxflow.ContextSentinel(s.info, e) }

// exact reports whether comparing e with == is exact: e is ctx.Err() (or a
// variable only assigned it), which is never wrapped, or
// context.Cause(ctx) in a package that gives no cancellation a cause of
// its own (then the cause is ctx.Err()).
func (s *state) exact(e ast.Expr) bool {
	if s.res.CtxErrOf(e) != nil {
		return true
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && analysisutil.IsCallToFunc(s.info, call, "context", "Cause") {
		return s.causeSetAt() == nil
	}
	return false
}

// causeSetAt returns a call by which the package gives a context's end a
// cause of its own, or nil: a CancelCauseFunc called with a value that is
// not nil (`cancel(errAborted)`), or context.WithTimeoutCause or
// WithDeadlineCause. Such a cause is what context.Cause returns, and it
// may wrap context.Canceled (`fmt.Errorf("aborted: %w",
// context.Canceled)`): == against the sentinel misses it.
func (s *state) causeSetAt() *ast.CallExpr {
	if s.causeSet != nil {
		return *s.causeSet
	}
	var found *ast.CallExpr
	for c := range s.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		if analysisutil.IsCallToFunc(s.info, call, "context", "WithTimeoutCause", "WithDeadlineCause") {
			found = call
			break
		}
		if t := s.info.TypeOf(call.Fun); t != nil && analysisutil.IsNamed(t, "context", "CancelCauseFunc") && len(call.Args) == 1 && !isNil(s.info, call.Args[0]) {
			found = call
			break
		}
	}
	s.causeSet = &found
	return found
}

// comparable reports whether a == comparison of e against a context
// sentinel is worth reporting: e is an error interface value that may be
// wrapped, and the code is not an Is method or the context package.
func (s *state) wrappable(cur inspector.Cursor, e ast.Expr) bool {
	t := s.info.TypeOf(e)
	if t == nil || !types.IsInterface(t) || !analysisutil.IsError(t) || s.exact(e) {
		return false
	}
	if s.pass.Pkg.Path() == "context" || s.inIsMethod(cur) {
		return false
	}
	// Only errors known to come from context-bound work: a parameter of a
	// helper such as mapErr(ctx.Err()) is usually the bare sentinel.
	if carries, isParam := s.paramCarries(e); isParam {
		return carries
	}
	return s.res.MayCarryCancel(e) || s.assignedCarrier(cur, e)
}

// paramCarries reports whether e is an error parameter of the declared
// function at cur, never assigned in its body, that its callers may hand a
// wrapped cancellation. Comparing a parameter with a context sentinel says
// the function expects to see cancellations; whether they arrive wrapped
// is up to its callers: a call in this package that passes an error that
// may carry cancellation and is not exact decides for yes, and so does a
// function with no call here (its callers are elsewhere: an exported
// function, a method reached through an interface, a function value).
// When the calls here all pass ctx.Err(), a sentinel or an error that
// carries no cancellation, they show what the function is for, and the
// comparison is exact.
//
// isParam is false when e is not such a parameter.
func (s *state) paramCarries(e ast.Expr) (carries, isParam bool) {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false, false
	}
	v, ok := s.info.Uses[id].(*types.Var)
	if !ok {
		return false, false
	}
	f, idx := s.res.ParamOf(v)
	if f == nil || f.Sig.Variadic() && idx == f.Sig.Params().Len()-1 || s.res.AssignedInBody(v) {
		return false, false
	}
	calls, _ := s.res.CallsOf(f.Obj)
	if len(calls) == 0 {
		return true, true
	}
	for _, call := range calls {
		if idx < len(call.Args) && !s.exact(call.Args[idx]) && s.res.MayCarryCancel(call.Args[idx]) {
			return true, true
		}
	}
	return false, true
}

// assignedCarrier reports whether e (a field or other non-variable
// expression) was assigned, by the statement just before the one holding
// cur, the error of a call that may carry cancellation:
//
//	info.x, info.err = load(ctx, dir)
//	if info.err == context.Canceled {
func (s *state) assignedCarrier(cur inspector.Cursor, e ast.Expr) bool {
	text := types.ExprString(e)
	for c := cur; c.Valid(); c = c.Parent() {
		if _, ok := c.Node().(ast.Stmt); !ok {
			continue
		}
		prev, ok := c.PrevSibling()
		if !ok {
			return false
		}
		as, ok := prev.Node().(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 {
			return false
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return false
		}
		for i, l := range as.Lhs {
			if types.ExprString(l) == text {
				idx := i
				if len(as.Lhs) == 1 {
					idx = 0
				}
				return s.res.CallMayCarryCancel(call, idx)
			}
		}
		return false
	}
	return false
}

// checkCompare reports err == context.Canceled (and !=, and
// DeadlineExceeded) on an error that may be wrapped.
func (s *state) checkCompare(cur inspector.Cursor, b *ast.BinaryExpr) {
	if s.checkTextCompare(b) {
		return
	}
	x, y, ok := s.sentinelCompare(b)
	if !ok || !s.wrappable(cur, x) {
		return
	}
	// err == context.Canceled || err == context.DeadlineExceeded is one
	// finding, reported at the first comparison with both fixed.
	comps := []*ast.BinaryExpr{b}
	if p, ok := cur.Parent().Node().(*ast.BinaryExpr); ok && (p.Op == token.LOR || p.Op == token.LAND) {
		if other, ok := ast.Unparen(p.X).(*ast.BinaryExpr); ok && other != b {
			if ox, _, ok := s.sentinelCompare(other); ok && types.ExprString(ox) == types.ExprString(x) {
				return // reported with p.X
			}
		}
		if other, ok := ast.Unparen(p.Y).(*ast.BinaryExpr); ok && other != b {
			if ox, _, ok := s.sentinelCompare(other); ok && types.ExprString(ox) == types.ExprString(x) {
				comps = append(comps, other)
			}
		}
	}
	d := analysis.Diagnostic{
		Pos: b.Pos(),
		End: comps[len(comps)-1].End(),
		Message: fmt.Sprintf("%s %s context.%s misses a wrapped cancellation (fmt.Errorf with %%w, net/url.Error, most clients wrap), so the check fails exactly when it matters; use errors.Is",
			types.ExprString(x), b.Op, s.sentinel(y)),
	}
	if call, ok := ast.Unparen(x).(*ast.CallExpr); ok && analysisutil.IsCallToFunc(s.info, call, "context", "Cause") {
		if at := s.causeSetAt(); at != nil {
			d.Message = fmt.Sprintf("%s %s context.%s misses a cause that wraps it: this package gives cancellations causes of its own (%s), which context.Cause returns as given, so the check fails for them; use errors.Is",
				types.ExprString(x), b.Op, s.sentinel(y), types.ExprString(at))
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: at.Pos(), End: at.End(), Message: "a cause is given here"})
		}
	}
	file := analysisutil.FileOf(s.pass, b.Pos())
	if file == nil {
		s.rep.Report(d)
		return
	}
	pkg, edits := analysisutil.AddImport(s.info, file, b.Pos(), "errors")
	for _, c := range comps {
		cx, cy, _ := s.sentinelCompare(c)
		xs, ys := s.source(cx), s.source(cy)
		if xs == "" || ys == "" {
			edits = nil
			break
		}
		not := ""
		if c.Op == token.NEQ {
			not = "!"
		}
		edits = append(edits, analysis.TextEdit{Pos: c.Pos(), End: c.End(), NewText: []byte(fmt.Sprintf("%s%s.Is(%s, %s)", not, pkg, xs, ys))})
	}
	if len(edits) > 0 {
		d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Use errors.Is", TextEdits: edits}}
	}
	s.rep.Report(d)
}

// sentinelCompare splits `x == context.Canceled` (either order, == or !=)
// into the compared operand and the sentinel.
func (s *state) sentinelCompare(b *ast.BinaryExpr) (x, sentinel ast.Expr, ok bool) {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return nil, nil, false
	}
	x, y := b.X, b.Y
	if s.sentinel(x) != "" {
		x, y = y, x
	}
	if s.sentinel(y) == "" || s.sentinel(x) != "" {
		return nil, nil, false
	}
	return x, y, true
}

// checkSwitch reports `switch err { case context.Canceled: }` on an error
// that may be wrapped. The fix rewrites it to `switch { case
// errors.Is(err, context.Canceled): }` when the tag is a plain variable.
func (s *state) checkSwitch(cur inspector.Cursor, sw *ast.SwitchStmt) {
	if sw.Tag == nil || !s.wrappable(cur, sw.Tag) || s.missPassesOn(cur, sw) {
		return
	}
	var first ast.Expr
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if s.sentinel(e) != "" && first == nil {
				first = e
			}
		}
	}
	if first == nil {
		return
	}
	d := analysis.Diagnostic{
		Pos: sw.Pos(),
		End: sw.Body.Lbrace,
		Message: fmt.Sprintf("switch on %s compares it with == against context.%s, which misses a wrapped cancellation; use errors.Is",
			types.ExprString(sw.Tag), s.sentinel(first)),
		Related: []analysis.RelatedInformation{{Pos: first.Pos(), End: first.End(), Message: "compared with == here"}},
	}
	file := analysisutil.FileOf(s.pass, sw.Pos())
	if tag, ok := ast.Unparen(sw.Tag).(*ast.Ident); ok && file != nil {
		pkg, edits := analysisutil.AddImport(s.info, file, sw.Pos(), "errors")
		edits = append(edits, analysis.TextEdit{Pos: sw.Tag.Pos(), End: sw.Tag.End()})
		ok := true
		for _, st := range sw.Body.List {
			for _, e := range st.(*ast.CaseClause).List {
				src := s.source(e)
				switch {
				case src == "" || strings.ContainsAny(src, "()"):
					ok = false // calls may have effects or types; keep it simple
				case isNil(s.info, e):
					edits = append(edits, analysis.TextEdit{Pos: e.Pos(), End: e.End(), NewText: []byte(tag.Name + " == nil")})
				default:
					edits = append(edits, analysis.TextEdit{Pos: e.Pos(), End: e.End(), NewText: []byte(pkg + ".Is(" + tag.Name + ", " + src + ")")})
				}
			}
		}
		if ok {
			d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Use errors.Is in a tagless switch", TextEdits: edits}}
		}
	}
	s.rep.Report(d)
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// sentinelTexts are the messages of the context package's errors.
var sentinelTexts = map[string]string{
	"context canceled":          "Canceled",
	"context deadline exceeded": "DeadlineExceeded",
}

// textOfSentinel returns the sentinel name for an expression that spells a
// context error's message: "context canceled" or context.Canceled.Error().
func (s *state) textOfSentinel(e ast.Expr) string {
	if tv, ok := s.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return sentinelTexts[constant.StringVal(tv.Value)]
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 0 {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
			return s.sentinel(sel.X)
		}
	}
	return ""
}

// errorTextOf returns X when e is X.Error() for an error X.
func (s *state) errorTextOf(e ast.Expr) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Error" || !analysisutil.IsError(s.info.TypeOf(sel.X)) || s.sentinel(sel.X) != "" {
		return nil
	}
	return sel.X
}

// checkTextCompare reports err.Error() == "context canceled",
// err.Error() != context.Canceled.Error() and strings.Contains(err.Error(),
// "context deadline exceeded"): matching the text is fragile (a wrapper
// or a custom cause changes it); errors.Is is exact. It returns whether it
// reported.
func (s *state) checkTextCompare(n ast.Expr) bool {
	var x ast.Expr
	var name string
	neg := false
	switch n := n.(type) {
	case *ast.BinaryExpr:
		if n.Op != token.EQL && n.Op != token.NEQ {
			return false
		}
		a, b := n.X, n.Y
		if s.errorTextOf(a) == nil {
			a, b = b, a
		}
		x, name, neg = s.errorTextOf(a), s.textOfSentinel(b), n.Op == token.NEQ
	case *ast.CallExpr:
		if !analysisutil.IsCallToFunc(s.info, n, "strings", "Contains", "HasSuffix") || len(n.Args) != 2 {
			return false
		}
		x, name = s.errorTextOf(n.Args[0]), s.textOfSentinel(n.Args[1])
	}
	if x == nil || name == "" {
		return false
	}
	d := analysis.Diagnostic{
		Pos: n.Pos(),
		End: n.End(),
		Message: fmt.Sprintf("matching the text of %s against context.%s's message breaks when the error is wrapped differently or carries a cause; use errors.Is(%s, context.%s)",
			types.ExprString(x), name, types.ExprString(x), name),
	}
	file := analysisutil.FileOf(s.pass, n.Pos())
	ctxName := analysisutil.ImportName(file, "context")
	if xs := s.source(x); file != nil && xs != "" && ctxName != "" {
		pkg, edits := analysisutil.AddImport(s.info, file, n.Pos(), "errors")
		not := ""
		if neg {
			not = "!"
		}
		edits = append([]analysis.TextEdit{{Pos: n.Pos(), End: n.End(), NewText: []byte(fmt.Sprintf("%s%s.Is(%s, %s.%s)", not, pkg, xs, ctxName, name))}}, edits...)
		d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Use errors.Is", TextEdits: edits}}
	}
	s.rep.Report(d)
	return true
}

// missPassesOn reports whether a switch on an error variable hands the
// variable on unchanged when no case matches: its default clause, or the
// statement after a switch without one, returns the variable alone
// (`default: return err`, net's mapErr). A wrapped cancellation that the ==
// cases miss is then returned as it came, identity kept: the miss maps
// nothing and loses nothing.
func (s *state) missPassesOn(cur inspector.Cursor, sw *ast.SwitchStmt) bool {
	id, ok := ast.Unparen(sw.Tag).(*ast.Ident)
	if !ok {
		return false
	}
	v := s.info.Uses[id]
	returnsV := func(st ast.Stmt) bool {
		ret, ok := st.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return false // other results may say what the miss decided
		}
		rid, ok := ast.Unparen(ret.Results[0]).(*ast.Ident)
		return ok && s.info.Uses[rid] == v
	}
	for _, st := range sw.Body.List {
		if cc := st.(*ast.CaseClause); cc.List == nil {
			return len(cc.Body) == 1 && returnsV(cc.Body[0])
		}
	}
	next, ok := cur.NextSibling()
	if !ok {
		return false
	}
	st, ok := next.Node().(ast.Stmt)
	return ok && returnsV(st)
}
