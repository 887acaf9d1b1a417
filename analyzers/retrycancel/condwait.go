package retrycancel

import (
	"fmt"
	"go/ast"
	"go/types"
	"go/version"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkCondWait reports a (*sync.Cond).Wait in a loop that tests a
// context of its function (ctx.Err(), a Done receive, a helper with the
// checks-context fact): the loop means cancellation to end the wait, but
// Wait returns only when another goroutine calls Broadcast or Signal, so
// once the context is done the loop keeps waiting until someone happens
// to wake it, and forever when nobody does. Quiet when the function sets
// up a wake-up of that condition (`context.AfterFunc(ctx, func() { ...;
// c.Broadcast() })`, a goroutine that broadcasts after `<-ctx.Done()`).
func (st *state) checkCondWait(cur inspector.Cursor, call *ast.CallExpr) {
	fn := analysisutil.Callee(st.info, call)
	if !analysisutil.IsMethod(fn, "sync", "Cond", "Wait") {
		return
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	cond := analysisutil.VarObject(st.info, sel.X)
	if cond == nil {
		return
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() {
		return
	}
	loop := st.innermostLoop(cur)
	if loop == nil || !st.checksCtx(loop) {
		return
	}
	ctx := st.testedContext(f, loop)
	if ctx == nil {
		return
	}
	top := f
	for top.Parent != nil {
		top = top.Parent
	}
	if st.wakesOnEnd(top.Body, cond) {
		return
	}
	x := types.ExprString(sel.X)
	d := analysis.Diagnostic{
		Pos: call.Pos(), End: call.End(),
		Message: fmt.Sprintf("%s.Wait does not return when %s is canceled: the loop tests %s only after a Broadcast or Signal wakes it, so once %s is done it keeps waiting until another goroutine happens to, and forever if none does; wake it on cancellation with context.AfterFunc(%s, ...) calling %s.Broadcast()",
			x, ctx.Expr, ctx.Expr, ctx.Expr, ctx.Expr, x),
	}
	if fix, ok := st.condWaitFix(f, call, sel.X, ctx); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	st.rep.Report(d)
}

// testedContext returns the context of f that the loop tests: the first
// of f's contexts the loop mentions.
func (st *state) testedContext(f *ctxflow.Func, loop ast.Node) *ctxflow.Context {
	for i := range f.Contexts {
		c := &f.Contexts[i]
		if c.Kind != ctxflow.ParamContext {
			continue
		}
		if analysisutil.ReferencesObject(st.info, loop, c.Obj) {
			return c
		}
	}
	return nil
}

// wakesOnEnd reports whether the function around body sets up a wake-up
// of the condition cond: a literal in it (given to context.AfterFunc,
// started by a go statement after `<-ctx.Done()`), or a function of the
// package given to context.AfterFunc in it, broadcasts or signals cond.
// A wake-up registered elsewhere answers another context's end, not this
// function's.
func (st *state) wakesOnEnd(body *ast.BlockStmt, cond types.Object) bool {
	found := false
	seen := map[*types.Func]bool{}
	var inspect func(n ast.Node, inLit bool)
	callee := func(fn *types.Func) {
		if fn != nil && fn.Pkg() == st.pass.Pkg && !seen[fn.Origin()] {
			seen[fn.Origin()] = true
			if d := st.res.DeclOf(fn); d != nil && d.Body != nil {
				inspect(d.Body, true)
			}
		}
	}
	inspect = func(n ast.Node, inLit bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				inspect(m.Body, true)
				return false
			case *ast.CallExpr:
				fn := analysisutil.Callee(st.info, m)
				if inLit && (analysisutil.IsMethod(fn, "sync", "Cond", "Broadcast") || analysisutil.IsMethod(fn, "sync", "Cond", "Signal")) {
					if sel, ok := ast.Unparen(m.Fun).(*ast.SelectorExpr); ok && analysisutil.VarObject(st.info, sel.X) == cond {
						found = true
					}
				}
				if inLit {
					callee(fn) // q.wake() from the wake-up literal
				}
				if analysisutil.IsFunc(fn, "context", "AfterFunc") && len(m.Args) == 2 {
					switch x := ast.Unparen(m.Args[1]).(type) {
					case *ast.Ident:
						g, _ := st.info.Uses[x].(*types.Func)
						callee(g)
					case *ast.SelectorExpr:
						g, _ := st.info.Uses[x.Sel].(*types.Func)
						callee(g)
					}
				}
			}
			return true
		})
	}
	inspect(body, false)
	return found
}

// condWaitFix registers, at the top of f's body, a context.AfterFunc that
// broadcasts on the condition under its own lock when ctx ends, and stops
// it on the way out. Only when the condition can be spelled there (the
// expression mentions nothing declared in f's body), the name stop is
// free, and the file's Go version has AfterFunc (1.21).
func (st *state) condWaitFix(f *ctxflow.Func, call *ast.CallExpr, x ast.Expr, ctx *ctxflow.Context) (analysis.SuggestedFix, bool) {
	decl, ok := f.Node.(*ast.FuncDecl)
	if !ok || decl.Body == nil || len(decl.Body.List) == 0 {
		return analysis.SuggestedFix{}, false
	}
	file := analysisutil.FileOf(st.pass, call.Pos())
	if file == nil {
		return analysis.SuggestedFix{}, false
	}
	if v := st.info.FileVersions[file]; v != "" && version.Compare(v, "go1.21") < 0 {
		return analysis.SuggestedFix{}, false
	}
	local := false
	ast.Inspect(x, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if obj := st.info.Uses[id]; obj != nil && obj.Pos() > decl.Body.Lbrace && obj.Pos() < decl.Body.Rbrace {
				local = true
			}
		}
		return !local
	})
	if local {
		return analysis.SuggestedFix{}, false
	}
	if scope := st.info.Scopes[decl.Type]; scope != nil {
		if _, obj := scope.Innermost(decl.Body.List[0].Pos()).LookupParent("stop", decl.Body.List[0].Pos()); obj != nil {
			return analysis.SuggestedFix{}, false
		}
	}
	stopUsed := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "stop" {
			stopUsed = true
		}
		return !stopUsed
	})
	if stopUsed {
		return analysis.SuggestedFix{}, false
	}
	ctxPkg, edits := analysisutil.AddImport(st.info, file, call.Pos(), "context")
	src := analysisutil.ReadSource(st.pass, call.Pos())
	in := ""
	if src != nil {
		in = analysisutil.Indent(st.pass.Fset, src, decl.Body.List[0].Pos())
	}
	c := types.ExprString(x)
	text := fmt.Sprintf("stop := %s.AfterFunc(%s, func() {\n%s\t%s.L.Lock()\n%s\t%s.Broadcast()\n%s\t%s.L.Unlock()\n%s})\n%sdefer stop()\n%s",
		ctxPkg, ctx.Expr, in, c, in, c, in, c, in, in, in)
	first := decl.Body.List[0].Pos()
	edits = append(edits, analysis.TextEdit{Pos: first, End: first, NewText: []byte(text)})
	return analysis.SuggestedFix{Message: "Broadcast on " + c + " when " + ctx.Expr + " is done", TextEdits: edits}, true
}
