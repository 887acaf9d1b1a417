package detachedctx

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkStoredContext reports a method that is given its caller's context
// (a context parameter, or a request's) and runs work under a context its
// receiver stored instead (s.ctx, directly or derived with context.With*):
// the work ignores the caller's deadline and cancellation and runs until
// the receiver's own context ends, which may be the life of the process.
// Not reported: goroutines and callbacks the method starts (the receiver's
// lifetime is theirs), methods that watch the stored context's end
// themselves (a worker loop for the receiver's life), shutdown methods
// (Close, Stop, ...), deferred calls, logging calls, and methods that take
// no context.
func (st *state) checkStoredContext(cfg Config, cur inspector.Cursor, sel *ast.SelectorExpr) (analysis.Diagnostic, bool) {
	info := st.pass.TypesInfo
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal || !analysisutil.IsContext(info.TypeOf(sel)) {
		return analysis.Diagnostic{}, false
	}
	if !cfg.IncludeTests && strings.HasSuffix(st.pass.Fset.File(sel.Pos()).Name(), "_test.go") {
		return analysis.Diagnostic{}, false
	}
	f := st.res.Enclosing(cur)
	if f == nil || f.Parent != nil || f.Obj == nil || f.Sig.Recv() == nil {
		return analysis.Diagnostic{}, false // a method's own body
	}
	recv := f.Sig.Recv()
	if root, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || info.ObjectOf(root) != recv {
		return analysis.Diagnostic{}, false
	}
	var caller ctxflow.Context
	for _, c := range f.Contexts {
		if !c.Outer && (c.Kind == ctxflow.ParamContext || c.Kind == ctxflow.RequestContext) {
			caller = c
			break
		}
	}
	if caller.Obj == nil || shutdownMethod(f) || st.inDefer(cur, f) || st.enclosingGoLit(cur) != nil {
		return analysis.Diagnostic{}, false
	}
	if st.holdsCaller(f, sel, caller) {
		// s.ctx = ctx; ... s.kv.Start(s.ctx): the field is the caller's
		// context here.
		return analysis.Diagnostic{}, false
	}
	if st.watches(f.Body, sel) {
		// for { select { case <-s.ctx.Done(): return ... } }: the method
		// runs for the receiver's lifetime, whatever its parameter says.
		return analysis.Diagnostic{}, false
	}
	fl := st.follow(cur, f, 0)
	if fl.kind != useCall || fl.call == nil || analysisutil.IsLogCall(info, fl.call) ||
		analysisutil.FormatsOperands(analysisutil.Callee(info, fl.call)) || !st.res.BoundCall(fl.call) {
		return analysis.Diagnostic{}, false
	}
	for _, a := range fl.call.Args {
		if ast.Unparen(a) != ast.Expr(sel) && analysisutil.IsContext(info.TypeOf(a)) && !st.res.Detached(a) {
			// queryDC(ctx, tx.ctx, ...): the callee is given the
			// caller's context too, and decides what each is for.
			return analysis.Diagnostic{}, false
		}
	}
	field := types.ExprString(sel)
	consumer := types.ExprString(fl.call.Fun)
	until := "runs until " + field + " ends"
	if st.neverEnds(s.Obj().(*types.Var)) {
		until = "is never canceled (every value the package stores in " + field + " is a context that cannot end)"
	}
	d := analysis.Diagnostic{
		Pos: sel.Pos(), End: sel.End(),
		Message: fmt.Sprintf("%s is given its caller's %s but runs %s under the receiver's stored context %s: the call ignores the caller's deadline and cancellation and %s",
			f.Obj.Name(), caller.Expr, consumer, field, until),
	}
	if st.exprResolves(caller, sel.Pos()) {
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   "Use the caller's context",
			TextEdits: []analysis.TextEdit{{Pos: sel.Pos(), End: sel.End(), NewText: []byte(caller.Expr)}},
		}}
	}
	return d, true
}

// holdsCaller reports whether the field sel holds the caller's context
// where sel reads it: the method assigns the field only contexts derived
// from the caller's (s.ctx = ctx, s.ctx, s.cancel = context.WithCancel(ctx)),
// and every path from its entry to sel passes one of those assignments.
func (st *state) holdsCaller(f *ctxflow.Func, sel *ast.SelectorExpr, caller ctxflow.Context) bool {
	g := st.paths.Func(f.Node)
	if g == nil {
		return false
	}
	at, ok := g.Locate(sel)
	if !ok {
		return false
	}
	info := st.pass.TypesInfo
	assigns := func(n ast.Node) (rhs ast.Expr, ok bool) {
		as, isAssign := n.(*ast.AssignStmt)
		if !isAssign {
			return nil, false
		}
		for i, l := range as.Lhs {
			if analysisutil.SamePath(info, l, sel) {
				if len(as.Lhs) == len(as.Rhs) {
					return as.Rhs[i], true
				}
				if i == 0 && len(as.Rhs) == 1 {
					return as.Rhs[0], true // ctx, cancel := context.WithCancel(...)
				}
				return nil, true
			}
		}
		return nil, false
	}
	n := 0
	fromCaller := true
	ast.Inspect(f.Body, func(x ast.Node) bool {
		if rhs, ok := assigns(x); ok {
			n++
			fromCaller = fromCaller && rhs != nil && st.derivesFrom(rhs, caller, 0)
		}
		return fromCaller
	})
	if n == 0 || !fromCaller {
		return false
	}
	node := at.Node()
	_, reached := g.Reaches(g.Entry(), func(x ast.Node) bool { return x == node }, func(x ast.Node) bool {
		_, ok := assigns(x)
		return ok
	})
	return !reached
}

// derivesFrom reports whether the context e is the caller's context c or
// derived from it by the context package (not WithoutCancel, which keeps
// only its values).
func (st *state) derivesFrom(e ast.Expr, c ctxflow.Context, depth int) bool {
	info := st.pass.TypesInfo
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return c.Kind == ctxflow.ParamContext && info.ObjectOf(x) == c.Obj
	case *ast.CallExpr:
		fn := analysisutil.Callee(info, x)
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok && analysisutil.IsMethod(fn, "net/http", "Request", "Context") {
			id, ok := ast.Unparen(sel.X).(*ast.Ident)
			return ok && c.Kind == ctxflow.RequestContext && info.ObjectOf(id) == c.Obj
		}
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || fn.Name() == "WithoutCancel" || len(x.Args) == 0 || depth > 8 {
			return false
		}
		return analysisutil.IsContext(info.TypeOf(x.Args[0])) && st.derivesFrom(x.Args[0], c, depth+1)
	}
	return false
}

// neverEnds reports whether every value the package stores in the context
// field fld (by assignment or in a composite literal) is one that cannot
// end: context.Background(), TODO(), WithoutCancel or WithValue of one. A
// field the package never assigns is not known to.
func (st *state) neverEnds(fld *types.Var) bool {
	if v, ok := st.fieldEnds[fld]; ok {
		return v
	}
	info := st.pass.TypesInfo
	n, roots := 0, 0
	for c := range st.ins.Root().Preorder((*ast.AssignStmt)(nil), (*ast.KeyValueExpr)(nil)) {
		switch x := c.Node().(type) {
		case *ast.AssignStmt:
			if len(x.Lhs) != len(x.Rhs) {
				continue
			}
			for i, l := range x.Lhs {
				if sl, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && info.ObjectOf(sl.Sel) == fld {
					n++
					if st.res.Detached(x.Rhs[i]) {
						roots++
					}
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := x.Key.(*ast.Ident); ok && info.ObjectOf(k) == fld {
				n++
				if st.res.Detached(x.Value) {
					roots++
				}
			}
		}
	}
	if st.fieldEnds == nil {
		st.fieldEnds = make(map[*types.Var]bool)
	}
	st.fieldEnds[fld] = n > 0 && n == roots
	return st.fieldEnds[fld]
}

// watches reports whether body looks at the end of the context x itself
// (x.Done(), x.Err(), context.Cause(x)).
func (st *state) watches(body *ast.BlockStmt, x ast.Expr) bool {
	info := st.pass.TypesInfo
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if found || !ok {
			return !found
		}
		fn := analysisutil.Callee(info, call)
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok &&
			(analysisutil.IsMethod(fn, "context", "Context", "Done") || analysisutil.IsMethod(fn, "context", "Context", "Err")) &&
			analysisutil.SamePath(info, sel.X, x) {
			found = true
		}
		if analysisutil.IsFunc(fn, "context", "Cause") && len(call.Args) == 1 && analysisutil.SamePath(info, call.Args[0], x) {
			found = true
		}
		return !found
	})
	return found
}

type storedKey struct {
	method ast.Node
	field  types.Object
}

// addStoredFinding records d, a checkStoredContext finding at sel: the
// first use of the field in a method is the finding, later uses in the
// same method are its related positions (one method, one finding).
func (st *state) addStoredFinding(d analysis.Diagnostic, cur inspector.Cursor, sel *ast.SelectorExpr) {
	f := st.res.Enclosing(cur)
	if f == nil {
		return
	}
	key := storedKey{f.Node, st.pass.TypesInfo.ObjectOf(sel.Sel)}
	if first := st.storedAt[key]; first != nil {
		first.Related = append(first.Related, analysis.RelatedInformation{
			Pos: sel.Pos(), End: sel.End(), Message: "and here",
		})
		// Each use's fix is its own edit: keep them together.
		if len(first.SuggestedFixes) == 1 && len(d.SuggestedFixes) == 1 {
			first.SuggestedFixes[0].TextEdits = append(first.SuggestedFixes[0].TextEdits, d.SuggestedFixes[0].TextEdits...)
		} else {
			first.SuggestedFixes = nil // a fix for some uses only would leave the rest
		}
		return
	}
	if st.storedAt == nil {
		st.storedAt = make(map[storedKey]*analysis.Diagnostic)
	}
	st.storedAt[key] = &d
	st.storedFindings = append(st.storedFindings, &d)
}
