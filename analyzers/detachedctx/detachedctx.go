package detachedctx

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	paths "github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct {
	// IncludeTests also checks functions in _test.go files.
	IncludeTests bool `json:"include_tests"`
}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "detachedctx",
		Doc:      analysisutil.MustExtractDoc(doc, "detachedctx"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/detachedctx.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctxflow.Analyzer, goroutines.Analyzer, directives.Analyzer, paths.Analyzer},
		Run:      analysisutil.Finishing((&checker{cfg}).run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

type checker struct{ cfg Config }

// pass-local state.
type state struct {
	pass  *analysis.Pass
	res   *ctxflow.Result
	ins   *inspector.Inspector
	gos   *goroutines.Lazy
	paths *paths.Result
	// rootCalls are the (function, callee) pairs checkMakesRoot reported.
	rootCalls map[rootCall]bool
	// rootFindings are checkMakesRoot's findings, one per root context
	// (the place a callee makes it), in the order of their first call;
	// rootAt indexes them by that place.
	rootFindings []*analysis.Diagnostic
	rootAt       map[string]*analysis.Diagnostic
	// fieldEnds caches neverEnds by context field.
	fieldEnds map[*types.Var]bool
	// storedFindings are checkStoredContext's findings, one per method and
	// field; storedAt indexes them.
	storedFindings []*analysis.Diagnostic
	storedAt       map[storedKey]*analysis.Diagnostic
	// commentEnds maps, per file, a line to the text of the comments
	// ending on it (justified); computed on first use.
	commentEnds map[*token.File]map[int]string
	// funcVars maps the package's variables that hold a declared function
	// (var timeAfterFunc = time.AfterFunc) to it; computed on first use.
	funcVars map[*types.Var]*types.Func
}

func (c *checker) run(pass *analysis.Pass) (any, error) {
	if !analysisutil.Imports(pass.Pkg, "context") && !analysisutil.Imports(pass.Pkg, "net/http") {
		return nil, nil // no context in reach: neither a parameter nor a request's
	}
	st := &state{
		pass:  pass,
		res:   pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result),
		ins:   pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		gos:   pass.ResultOf[goroutines.Analyzer].(*goroutines.Lazy),
		paths: pass.ResultOf[paths.Analyzer].(*paths.Result),
	}
	rep := analysisutil.NewReporter(pass)
	for cur := range st.ins.Root().Preorder((*ast.CallExpr)(nil), (*ast.SelectorExpr)(nil)) {
		if sel, ok := cur.Node().(*ast.SelectorExpr); ok {
			if d, ok := st.checkStoredContext(c.cfg, cur, sel); ok {
				st.addStoredFinding(d, cur, sel)
			}
			continue
		}
		call := cur.Node().(*ast.CallExpr)
		rootCall := len(call.Args) == 0 && analysisutil.IsCallToFunc(pass.TypesInfo, call, "context", "Background", "TODO")
		if !rootCall && st.res.ReturnsRoot(analysisutil.Callee(pass.TypesInfo, call)) && st.inOtherFunc(cur) {
			rootCall = true // a helper that returns Background() in disguise
		}
		if !rootCall {
			if d, ok := st.checkContextless(c.cfg, cur, call); ok {
				rep.Report(d)
			} else if d, root, ok := st.checkMakesRoot(c.cfg, cur, call); ok {
				st.addRootFinding(d, root, call)
			}
			continue
		}
		if d, ok := st.check(c.cfg, cur, call); ok {
			rep.Report(d)
		}
	}
	for _, d := range st.rootFindings {
		rep.Report(*d)
	}
	for _, d := range st.storedFindings {
		rep.Report(*d)
	}
	rep.Finish()
	return nil, nil
}

// use is how a fresh context is consumed.
type use int

const (
	useNone    use = iota // not used, or used in a way we do not judge
	useSkip               // stored, handed to a goroutine, detached on purpose
	useCall               // passed to a call that runs under it
	useCleanup            // passed to a deferred or cleanup call
)

type flow struct {
	kind use
	call *ast.CallExpr // the consuming call, for useCall and useCleanup
}

func (st *state) check(cfg Config, cur inspector.Cursor, call *ast.CallExpr) (analysis.Diagnostic, bool) {
	pass := st.pass
	file := analysisutil.FileOf(pass, call.Pos())
	if file == nil {
		return analysis.Diagnostic{}, false
	}
	if !cfg.IncludeTests && strings.HasSuffix(pass.Fset.File(call.Pos()).Name(), "_test.go") {
		return analysis.Diagnostic{}, false
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() {
		return analysis.Diagnostic{}, false
	}
	if st.inMainOrInit(f) {
		return analysis.Diagnostic{}, false
	}

	// Pick the context the fresh one replaces.
	reach, ok := st.contextInReach(cur, f)
	lifetime := false
	if !ok {
		if reach, ok = st.lifetimeInReach(cur, f); !ok {
			return analysis.Diagnostic{}, false
		}
		lifetime = true
	}
	if st.afterEnd(cur, f, call) || st.nilFallback(cur, f) || st.inAfterFunc(cur) || st.rebasedWith(cur, call) || st.justified(cur, call) {
		return analysis.Diagnostic{}, false
	}
	fl := st.follow(cur, f, 0)
	if fl.kind == useNone || fl.kind == useSkip {
		return analysis.Diagnostic{}, false
	}
	if reach.Kind == ctxflow.FieldContext && compatWrapper(f, calleeName(pass.TypesInfo, fl.call)) {
		// func (tx *Tx) Exec(q string) { return tx.ExecContext(context.Background(), q) }:
		// the context-less form of an API, detached by contract.
		return analysis.Diagnostic{}, false
	}
	if st.storedResult(fl.call) {
		// s.pool = NewPool(context.Background()): the context belongs to
		// a long-lived owner.
		return analysis.Diagnostic{}, false
	}
	if st.inDefer(cur, f) {
		fl.kind = useCleanup
	}
	logCall := analysisutil.IsLogCall(pass.TypesInfo, fl.call)
	if lifetime && (logCall || fl.kind == useCleanup || fl.kind == useCall && cleanupName(calleeName(pass.TypesInfo, fl.call))) {
		return analysis.Diagnostic{}, false // records and cleanups need no lifetime
	}
	if logCall && st.res.ValueLess(reach) {
		// The context in reach was made from Background with cancels and
		// deadlines only: the record loses no value.
		return analysis.Diagnostic{}, false
	}
	if fl.kind == useCall && !logCall && cleanupName(calleeName(pass.TypesInfo, fl.call)) {
		fl.kind = useCleanup
	}

	name := "context.Background()"
	helper := ""
	switch {
	case analysisutil.IsCallToFunc(pass.TypesInfo, call, "context", "TODO"):
		name = "context.TODO()"
	case !analysisutil.IsCallToFunc(pass.TypesInfo, call, "context", "Background"):
		// A helper with the ReturnsRoot fact: say what it returns; a
		// rewrite of its call would lose what it adds (values), so no fix.
		helper = types.ExprString(call.Fun)
		name = helper + "(...), which returns a context made from context.Background(),"
	}
	goVersion := pass.TypesInfo.FileVersions[file]
	withoutCancel := goVersion == "" || version.Compare(goVersion, "go1.21") >= 0
	exprOK := st.exprResolves(reach, call.Pos())
	pkgName := ""
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			pkgName = id.Name
		}
	}
	consumer := types.ExprString(fl.call.Fun)
	if helper != "" {
		exprOK = false // no mechanical fix: the helper's values would be lost
	}

	detach := analysis.SuggestedFix{
		Message:   "Detach with context.WithoutCancel",
		TextEdits: []analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: fmt.Appendf(nil, "%s.WithoutCancel(%s)", pkgName, reach.Expr)}},
	}
	d := analysis.Diagnostic{Pos: call.Pos(), End: call.End()}
	switch fl.kind {
	case useCleanup:
		if !withoutCancel {
			return analysis.Diagnostic{}, false
		}
		d.Message = fmt.Sprintf("%s for the cleanup call %s drops the values of %s (trace spans, request IDs) along with its cancellation; context.WithoutCancel(%s) outlives the cancellation and keeps them",
			name, consumer, reach.Expr, reach.Expr)
		if exprOK && pkgName != "" {
			d.SuggestedFixes = []analysis.SuggestedFix{detach}
		}
	default:
		d.Message = fmt.Sprintf("%s in %s cuts off %s: work under %s keeps running after the caller's deadline passes or it is canceled",
			name, funcName(f), reach.Expr, consumer)
		if lifetime {
			top := f
			for top.Parent != nil {
				top = top.Parent
			}
			d.Message = fmt.Sprintf("%s in the goroutine started by %s cuts its work under %s off from %s, the context %s keeps for its lifetime: when %s is canceled at shutdown, the goroutine keeps running; derive its context from %s",
				name, funcName(top), consumer, reach.Expr, reach.Obj.Name(), reach.Expr, reach.Expr)
		}
		if fl.call.Pos() > call.End() || fl.call.End() < call.Pos() {
			// ctx = context.Background() ... f2(ctx): where the cut-off
			// context is used.
			d.Related = []analysis.RelatedInformation{{Pos: fl.call.Pos(), End: fl.call.End(), Message: consumer + " runs under the detached context here"}}
		}
		if logCall {
			d.Message = fmt.Sprintf("%s passed to %s in %s drops the values of %s: the record loses whatever the logger reads from it (trace and request IDs)",
				name, consumer, funcName(f), reach.Expr)
		}
		if lifetime && exprOK {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Use the lifetime context " + reach.Expr,
				TextEdits: []analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte(reach.Expr)}},
			}}
		} else if exprOK && !st.selfAssign(cur, reach) {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Use the context in reach",
				TextEdits: []analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte(reach.Expr)}},
			}}
			if !logCall && withoutCancel && pkgName != "" {
				// The alternative for code that outlives the caller on
				// purpose (a shared cache fill under its own timeout): say
				// so, and keep the values.
				d.SuggestedFixes = append(d.SuggestedFixes, detach)
				if st.outlivesCaller(cur, f) {
					// Work that outlives the caller by design (a goroutine
					// nothing waits for) or that would spin on a canceled
					// context (a retry loop that never tests it): passing
					// the caller's context changes what the code does;
					// detaching it keeps that and the values.
					d.SuggestedFixes[0], d.SuggestedFixes[1] = d.SuggestedFixes[1], d.SuggestedFixes[0]
				}
			}
		}
	}
	return d, true
}

// outlivesCaller reports whether the code at cur keeps running whatever
// the caller's context does, so that handing it that context would change
// its behaviour: it is inside a goroutine literal that nothing joins, or
// inside a retry loop that never tests for cancellation (with the caller's
// context, every attempt would fail at once after it ends, and the loop
// would spin).
func (st *state) outlivesCaller(cur inspector.Cursor, f *ctxflow.Func) bool {
	if st.res.InUncheckedRetryLoop(cur) {
		return true
	}
	lit := st.enclosingGoLit(cur)
	if lit == nil {
		return false
	}
	for _, g := range st.gos.Get().Goroutines {
		if g.Lit == lit {
			return g.Join == "" && !g.Bound
		}
	}
	return false
}

// joinedLit reports whether lit is the body of a goroutine its spawner
// joins on every path to its return (a WaitGroup, a group, a done
// channel), not one bound to a context or a channel of its own, nor one a
// longer-lived owner waits for (s.wg waited in Close).
func (st *state) joinedLit(lit *ast.FuncLit) bool {
	for _, g := range st.gos.Get().Goroutines {
		if g.Lit == lit {
			return g.Join == goroutines.JoinedOnEveryPath
		}
	}
	return false
}

func funcName(f *ctxflow.Func) string {
	for g := f; g != nil; g = g.Parent {
		if g.Obj != nil {
			if g == f {
				return g.Obj.Name()
			}
			return "a function literal in " + g.Obj.Name()
		}
	}
	return "a function literal"
}

// contextInReach returns the context the fresh one should have been derived
// from. Inside a `go func() {...}()` literal, contexts of the spawning
// function count only when the literal uses one of them: a goroutine that
// never looks at its spawner's context is detached on purpose.
func (st *state) contextInReach(cur inspector.Cursor, f *ctxflow.Func) (ctxflow.Context, bool) {
	goLit := st.enclosingGoLit(cur)
	if goLit != nil && st.joinedLit(goLit) {
		// The spawner waits for the goroutine: its work is part of the
		// spawner's, under the spawner's deadline, whether or not the
		// literal mentions the spawner's context.
		goLit = nil
	}
	for _, c := range f.Contexts {
		if v, ok := c.Obj.(*types.Var); ok && (c.Kind == ctxflow.ParamContext && st.res.DetachedParam(v) ||
			c.Kind == ctxflow.RequestContext && st.res.DetachedRequestParam(v)) {
			// Every caller passes context.Background(): the context in
			// reach never ends, so nothing is cut off.
			continue
		}
		if c.Kind == ctxflow.FieldContext && ownsContext(c) && !st.observesEnd(f, c) {
			// The receiver creates and cancels its own context (it holds
			// the cancel func too): that context is its lifetime, not a
			// caller's. Unless the function itself ends with it (a loop
			// that returns on <-cl.ctx.Done()): then it is the function's
			// governing context, and a fresh root in its work outlasts
			// the end the function waits for.
			continue
		}
		if c.Kind == ctxflow.FieldContext && shutdownMethod(f) {
			// Close, Stop, Shutdown: the receiver's context is the one
			// being torn down; the shutdown work needs a live one.
			continue
		}
		if goLit == nil || inside(c.Obj.Pos(), goLit) {
			return c, true
		}
		if usesContext(st.pass.TypesInfo, goLit.Body, c) {
			return c, true
		}
	}
	return ctxflow.Context{}, false
}

// lifetimeInReach returns a context field of the receiver when cur is in
// a goroutine literal (started by a go statement) of a method, other than
// a shutdown method, that its spawner does not wait for: a goroutine meant
// to outlive the call, whose natural parent is the context the receiver
// keeps for its lifetime (`h.appCtx`, or one it creates and cancels
// itself), so that shutting the receiver down ends it. A fresh root there
// escapes the shutdown.
func (st *state) lifetimeInReach(cur inspector.Cursor, f *ctxflow.Func) (ctxflow.Context, bool) {
	lit := st.enclosingGoLit(cur)
	if lit == nil || shutdownMethod(f) {
		return ctxflow.Context{}, false
	}
	started := false
	for c := range st.ins.Root().Preorder((*ast.GoStmt)(nil)) {
		if gs := c.Node().(*ast.GoStmt); ast.Unparen(gs.Call.Fun) == ast.Expr(lit) {
			started = true
			break
		}
	}
	if !started {
		return ctxflow.Context{}, false
	}
	for _, c := range f.Contexts {
		if c.Kind == ctxflow.FieldContext && !inside(c.Obj.Pos(), lit) {
			return c, true
		}
	}
	return ctxflow.Context{}, false
}

// enclosingGoLit returns the outermost function literal enclosing cur that
// runs detached from its caller's lifetime: started by a go statement,
// registered to run later (time.AfterFunc, stored in a field or a composite
// literal as a callback, returned to the caller), or run once for many
// callers
// (sync.Once.Do, sync.OnceFunc and friends, singleflight's Do and DoChan).
// It returns nil when there is none.
func (st *state) enclosingGoLit(cur inspector.Cursor) *ast.FuncLit {
	var out *ast.FuncLit
	for c := cur.Parent(); c.Node() != nil; c = c.Parent() {
		lit, ok := c.Node().(*ast.FuncLit)
		if !ok {
			continue
		}
		switch p := c.Parent().Node().(type) {
		case *ast.KeyValueExpr, *ast.CompositeLit:
			out = lit // a callback stored for later
			continue
		case *ast.ReturnStmt:
			out = lit // return tp, func() error { ... }: run by the caller, later
			continue
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if _, ok := ast.Unparen(l).(*ast.Ident); !ok {
					out = lit // s.onEvict = func() {...}
				}
			}
			continue
		}
		call, ok := c.Parent().Node().(*ast.CallExpr)
		if !ok {
			continue
		}
		if ast.Unparen(call.Fun) == lit {
			if _, ok := c.Parent().Parent().Node().(*ast.GoStmt); ok {
				out = lit
			}
			continue
		}
		if sharedRunner(st.callee(call)) {
			out = lit
		}
	}
	return out
}

// rebasedWith reports whether the fresh context root is an argument of a
// call that is also given a live context of the caller's:
// `request.AddValues(context.Background(), ctx)` builds a context on a new
// root from what ctx holds, the hand-made form of context.WithoutCancel,
// so the detachment is the call's purpose, made with ctx in view.
func (st *state) rebasedWith(cur inspector.Cursor, root *ast.CallExpr) bool {
	call, ok := cur.Parent().Node().(*ast.CallExpr)
	if !ok || ast.Unparen(call.Fun) == ast.Expr(root) {
		return false
	}
	// A context, not a request: a handler helper given the request
	// besides (f(context.Background(), w, r)) builds no context from it.
	return st.givenLiveContext(call, cur.Node())
}

// givenLiveContext reports whether call is also given, besides e, a live
// context of the caller's (not a request: see rebasedWith).
func (st *state) givenLiveContext(call *ast.CallExpr, e ast.Node) bool {
	for _, a := range call.Args {
		if ast.Node(a) == e {
			continue
		}
		if analysisutil.IsContext(st.pass.TypesInfo.TypeOf(a)) && !st.res.Detached(a) {
			return true
		}
	}
	return false
}

// justified reports whether a comment on the root's line, or the comment
// block ending on the line above it or above the statement holding it,
// says why the context is detached (knowledge.DetachReasons:
// "deliberately", "must outlive the request", "do not propagate ... to
// avoid early cancellation").
func (st *state) justified(cur inspector.Cursor, root *ast.CallExpr) bool {
	fset := st.pass.Fset
	tf := fset.File(root.Pos())
	if tf == nil {
		return false
	}
	if st.commentEnds == nil {
		st.commentEnds = make(map[*token.File]map[int]string)
	}
	ends, ok := st.commentEnds[tf]
	if !ok {
		ends = make(map[int]string)
		for _, file := range st.pass.Files {
			if fset.File(file.Pos()) != tf {
				continue
			}
			for _, cg := range file.Comments {
				ends[tf.Line(cg.End())] += " " + strings.ToLower(cg.Text())
			}
		}
		st.commentEnds[tf] = ends
	}
	line := tf.Line(root.Pos())
	lines := []int{line, line - 1}
	for c := cur.Parent(); c.Node() != nil; c = c.Parent() {
		if _, ok := c.Node().(ast.Stmt); ok {
			lines = append(lines, tf.Line(c.Node().Pos())-1)
			break
		}
	}
	for _, l := range lines {
		text := ends[l]
		for _, w := range knowledge.DetachReasons {
			if strings.Contains(text, w) {
				return true
			}
		}
	}
	return false
}

// callee returns the function call calls: its static callee, or the
// declared function a package variable it calls through holds (var
// timeAfterFunc = time.AfterFunc, a seam for tests).
func (st *state) callee(call *ast.CallExpr) *types.Func {
	info := st.pass.TypesInfo
	if fn := analysisutil.Callee(info, call); fn != nil {
		return fn
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Pkg() != st.pass.Pkg || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	if st.funcVars == nil {
		st.funcVars = packageFuncVars(st.pass)
	}
	return st.funcVars[v]
}

// packageFuncVars returns the package-level variables initialized to a
// declared function and assigned nowhere else outside tests, with that
// function.
func packageFuncVars(pass *analysis.Pass) map[*types.Var]*types.Func {
	info := pass.TypesInfo
	out := make(map[*types.Var]*types.Func)
	reassigned := make(map[*types.Var]bool)
	for _, file := range pass.Files {
		test := strings.HasSuffix(pass.Fset.File(file.Pos()).Name(), "_test.go")
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				if test || len(n.Names) != len(n.Values) {
					return true
				}
				for i, name := range n.Names {
					v, ok := info.Defs[name].(*types.Var)
					if !ok || v.Parent() != v.Pkg().Scope() {
						continue
					}
					var fn *types.Func
					switch e := ast.Unparen(n.Values[i]).(type) {
					case *ast.Ident:
						fn, _ = info.Uses[e].(*types.Func)
					case *ast.SelectorExpr:
						fn, _ = info.Uses[e.Sel].(*types.Func)
					}
					if fn != nil {
						out[v] = fn
					}
				}
			case *ast.AssignStmt:
				if test {
					return true
				}
				for _, l := range n.Lhs {
					if id, ok := ast.Unparen(l).(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok {
							reassigned[v] = true
						}
					}
				}
			}
			return true
		})
	}
	for v := range reassigned {
		delete(out, v)
	}
	return out
}

// sharedRunner reports whether fn runs a function argument outside its
// caller's lifetime: later, or once on behalf of many callers.
func sharedRunner(fn *types.Func) bool {
	switch {
	case fn == nil:
		return false
	case analysisutil.IsFunc(fn, "time", "AfterFunc"),
		analysisutil.IsMethod(fn, "sync", "Once", "Do"),
		analysisutil.IsFunc(fn, "sync", "OnceFunc"),
		analysisutil.IsFunc(fn, "sync", "OnceValue"),
		analysisutil.IsFunc(fn, "sync", "OnceValues"),
		analysisutil.IsMethod(fn, "golang.org/x/sync/singleflight", "Group", "Do"),
		analysisutil.IsMethod(fn, "golang.org/x/sync/singleflight", "Group", "DoChan"):
		return true
	}
	return false
}

// inAfterFunc reports whether cur lies in a function literal passed to
// context.AfterFunc: it runs after the context ended.
func (st *state) inAfterFunc(cur inspector.Cursor) bool {
	for c := cur.Parent(); c.Node() != nil; c = c.Parent() {
		if _, ok := c.Node().(*ast.FuncLit); !ok {
			continue
		}
		if call, ok := c.Parent().Node().(*ast.CallExpr); ok && analysisutil.IsCallToFunc(st.pass.TypesInfo, call, "context", "AfterFunc") {
			return true
		}
	}
	return false
}

func inside(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// usesContext reports whether body mentions the context c.
func usesContext(info *types.Info, body ast.Node, c ctxflow.Context) bool {
	if c.Kind != ctxflow.FieldContext {
		return analysisutil.ReferencesObject(info, body, c.Obj)
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && info.Uses[sel.Sel] == c.Field {
			found = true
		}
		return !found
	})
	return found
}

// follow classifies how the value of the expression at cur is used.
func (st *state) follow(cur inspector.Cursor, f *ctxflow.Func, depth int) flow {
	if depth > 4 {
		return flow{}
	}
	info := st.pass.TypesInfo
	e := cur.Node()
	parent := cur.Parent()
	for {
		if _, ok := parent.Node().(*ast.ParenExpr); !ok {
			break
		}
		e = parent.Node()
		parent = parent.Parent()
	}
	switch p := parent.Node().(type) {
	case *ast.CallExpr:
		if ast.Unparen(p.Fun) == e {
			return flow{}
		}
		fn := analysisutil.Callee(info, p)
		if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" {
			switch fn.Name() {
			case "WithoutCancel":
				return flow{kind: useSkip}
			case "WithCancel", "WithTimeout", "WithDeadline", "WithValue",
				"WithCancelCause", "WithTimeoutCause", "WithDeadlineCause":
				if len(p.Args) > 0 && p.Args[0] == e {
					return st.follow(parent, f, depth+1)
				}
			}
			return flow{}
		}
		if analysisutil.IsFunc(fn, "runtime/pprof", "SetGoroutineLabels") {
			// pprof.SetGoroutineLabels(context.Background()) clears the
			// goroutine's profiler labels: the empty context is the point.
			return flow{kind: useSkip}
		}
		if depth > 0 && st.givenLiveContext(p, e) {
			// newCtx := context.Background(); newCtx =
			// fs.CopyConfig(newCtx, ctx): the fresh root, held in a
			// variable, is rebased with ctx in view (rebasedWith).
			return flow{kind: useSkip}
		}
		switch gp := parent.Parent().Node().(type) {
		case *ast.GoStmt:
			return flow{kind: useSkip}
		case *ast.DeferStmt:
			if gp.Call == p {
				return flow{kind: useCleanup, call: p}
			}
		}
		return flow{kind: useCall, call: p}
	case *ast.AssignStmt:
		idx := -1
		for i, r := range p.Rhs {
			if r == e {
				idx = i
			}
		}
		if idx < 0 {
			return flow{}
		}
		if len(p.Rhs) == 1 && len(p.Lhs) > 1 {
			idx = 0 // ctx, cancel := context.WithX(...)
		}
		if idx >= len(p.Lhs) {
			return flow{}
		}
		return st.followVar(info.ObjectOf(identOf(p.Lhs[idx])), p.Lhs[idx], f, depth)
	case *ast.ValueSpec:
		idx := -1
		for i, r := range p.Values {
			if r == e {
				idx = i
			}
		}
		if idx < 0 {
			return flow{}
		}
		if len(p.Values) == 1 && len(p.Names) > 1 {
			idx = 0
		}
		if idx >= len(p.Names) {
			return flow{}
		}
		return st.followVar(info.ObjectOf(p.Names[idx]), p.Names[idx], f, depth)
	case *ast.CompositeLit, *ast.KeyValueExpr, *ast.ReturnStmt, *ast.SendStmt:
		return flow{kind: useSkip}
	}
	return flow{}
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}

// followVar classifies the uses of a local variable holding a fresh context.
// Any use that stores it or hands it to a goroutine makes the whole thing
// deliberate; otherwise the first call that uses it is the consumer.
func (st *state) followVar(obj types.Object, lhs ast.Expr, f *ctxflow.Func, depth int) flow {
	v, ok := obj.(*types.Var)
	if !ok || identOf(lhs) == nil || v.Name() == "_" || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		// A field, a package-level variable or the blank identifier:
		// stored for a long-lived owner.
		return flow{kind: useSkip}
	}
	fcur, ok := analysisutil.FindNode(st.ins.Root(), f.Node)
	if !ok {
		return flow{}
	}
	reached := st.reachedBy(f, lhs, v)
	var best flow
	for c := range fcur.Preorder((*ast.Ident)(nil)) {
		id := c.Node().(*ast.Ident)
		if st.pass.TypesInfo.Uses[id] != v || !reached(id) {
			continue
		}
		fl := st.follow(c, f, depth+1)
		switch fl.kind {
		case useSkip:
			return fl
		case useCall, useCleanup:
			if best.kind == useNone {
				best = fl
			}
		}
	}
	return best
}

// reachedBy returns a predicate telling whether a use of v can see the
// value the assignment to lhs gives it: some path from the assignment
// reaches the use without assigning v again (`f2(ctx); ctx =
// context.Background(); f2(ctx)`: only the second f2 runs under the fresh
// context). Uses the graph cannot place (inside function literals) count.
func (st *state) reachedBy(f *ctxflow.Func, lhs ast.Expr, v *types.Var) func(*ast.Ident) bool {
	all := func(*ast.Ident) bool { return true }
	g := st.paths.Func(f.Node)
	if g == nil {
		return all
	}
	def, ok := g.Locate(lhs)
	if !ok {
		return all
	}
	info := st.pass.TypesInfo
	assignsV := func(n ast.Node) bool {
		if n == def.Node() {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return false
		}
		for _, l := range as.Lhs {
			if id := identOf(l); id != nil && info.ObjectOf(id) == v {
				return true
			}
		}
		return false
	}
	return func(id *ast.Ident) bool {
		use, ok := g.Locate(id)
		if !ok {
			return true
		}
		if use.Node() == def.Node() {
			return false // ctx = wrap(ctx): the use runs before the assignment
		}
		_, ok = g.Reaches(def.Next(), func(n ast.Node) bool { return n == use.Node() }, assignsV)
		return ok
	}
}

// storedResult reports whether the result of call is stored for a
// long-lived owner: assigned to a field or package-level variable, put in a
// composite literal, or, for a constructor (New...), returned.
func (st *state) storedResult(call *ast.CallExpr) bool {
	if st.res.StoresContext(analysisutil.Callee(st.pass.TypesInfo, call)) {
		// vm.SetContext(context.Background()): a setter that only stores
		// it; the context is the lifetime of the object that holds it.
		return true
	}
	cur, ok := analysisutil.FindNode(st.ins.Root(), call)
	if !ok {
		return false
	}
	info := st.pass.TypesInfo
	switch p := cur.Parent().Node().(type) {
	case *ast.CompositeLit, *ast.KeyValueExpr:
		return true
	case *ast.ReturnStmt:
		// return NewPool(context.Background()): a constructor whose value
		// outlives this call.
		return strings.HasPrefix(calleeName(info, call), "New")
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			id := identOf(l)
			if id == nil {
				return true // a field or an element
			}
			v, ok := info.ObjectOf(id).(*types.Var)
			if !ok || analysisutil.IsError(v.Type()) {
				continue // the error result says nothing about ownership
			}
			if v.Parent() == v.Pkg().Scope() {
				return true
			}
			// c := NewClient(context.Background()); s.client = c
			if strings.HasPrefix(calleeName(info, call), "New") && st.varStored(v, cur, true) {
				return true
			}
		}
	}
	return false
}

// varStored reports whether the local variable v is stored for a
// long-lived owner somewhere in the function around cur: assigned to a
// field or package-level variable, put in a composite literal, or (when
// returns is set) returned.
func (st *state) varStored(v *types.Var, cur inspector.Cursor, returns bool) bool {
	var fn inspector.Cursor
	found := false
	for c := range cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		fn, found = c, true
		break
	}
	if !found {
		return false
	}
	info := st.pass.TypesInfo
	for c := range fn.Preorder((*ast.Ident)(nil)) {
		if info.Uses[c.Node().(*ast.Ident)] != v {
			continue
		}
		switch p := c.Parent().Node().(type) {
		case *ast.CompositeLit, *ast.KeyValueExpr:
			return true
		case *ast.ReturnStmt:
			if returns {
				return true
			}
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if identOf(l) == nil {
					return true
				}
			}
		}
	}
	return false
}

// afterEnd reports whether the fresh context is made after the context in
// reach has ended, as graceful shutdown code does.
func (st *state) afterEnd(cur inspector.Cursor, f *ctxflow.Func, call *ast.CallExpr) bool {
	info := st.pass.TypesInfo
	for c := cur.Parent(); c.Node() != nil && c.Node() != f.Node; c = c.Parent() {
		switch n := c.Node().(type) {
		case *ast.CommClause:
			if isDoneRecv(info, n.Comm) {
				return true
			}
		case *ast.IfStmt:
			if inside(call.Pos(), n.Body) && mentionsCtxEnd(info, n.Cond) {
				return true
			}
		}
	}
	fcur, ok := analysisutil.FindNode(st.ins.Root(), f.Node)
	if !ok {
		return false
	}
	for c := range fcur.Preorder((*ast.ExprStmt)(nil), (*ast.SelectStmt)(nil), (*ast.AssignStmt)(nil)) {
		n := c.Node()
		if n.End() > call.Pos() || st.res.Enclosing(c) != f {
			continue
		}
		switch n := n.(type) {
		case *ast.ExprStmt, *ast.AssignStmt:
			if cc, ok := c.Parent().Node().(*ast.CommClause); ok && cc.Comm == n {
				continue // handled with its select
			}
			if isDoneRecv(info, n.(ast.Stmt)) {
				return true
			}
		case *ast.SelectStmt:
			// A select whose Done case falls through to the code below.
			for _, cc := range n.Body.List {
				cc := cc.(*ast.CommClause)
				if isDoneRecv(info, cc.Comm) && !analysisutil.Leaves(info, cc.Body) {
					return true
				}
			}
		}
	}
	return false
}

func isDoneRecv(info *types.Info, s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		return isDoneRecvExpr(info, s.X)
	case *ast.AssignStmt:
		return len(s.Rhs) == 1 && isDoneRecvExpr(info, s.Rhs[0])
	}
	return false
}

func isDoneRecvExpr(info *types.Info, e ast.Expr) bool {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	call, ok := ast.Unparen(u.X).(*ast.CallExpr)
	return ok && analysisutil.IsMethod(analysisutil.Callee(info, call), "context", "Context", "Done")
}

// mentionsCtxEnd reports whether e calls Err or Done of a context, or
// context.Cause.
func mentionsCtxEnd(info *types.Info, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			fn := analysisutil.Callee(info, call)
			if analysisutil.IsMethod(fn, "context", "Context", "Err") ||
				analysisutil.IsMethod(fn, "context", "Context", "Done") ||
				analysisutil.IsFunc(fn, "context", "Cause") {
				found = true
			}
		}
		return !found
	})
	return found
}

// nilFallback reports whether cur lies in `if ctx == nil {...}`.
func (st *state) nilFallback(cur inspector.Cursor, f *ctxflow.Func) bool {
	info := st.pass.TypesInfo
	for c := cur.Parent(); c.Node() != nil && c.Node() != f.Node; c = c.Parent() {
		ifs, ok := c.Node().(*ast.IfStmt)
		if !ok || !inside(cur.Node().Pos(), ifs.Body) {
			continue
		}
		if b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr); ok && b.Op == token.EQL {
			for _, side := range [2][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
				if analysisutil.IsContext(info.TypeOf(side[0])) && info.Types[side[1]].IsNil() {
					return true
				}
			}
		}
	}
	return false
}

// inDefer reports whether cur lies in a deferred call or in a function
// literal that is deferred, within f or its enclosing functions.
func (st *state) inDefer(cur inspector.Cursor, f *ctxflow.Func) bool {
	for c := cur.Parent(); c.Node() != nil; c = c.Parent() {
		switch c.Node().(type) {
		case *ast.DeferStmt:
			return true
		case *ast.FuncDecl:
			return false
		}
	}
	return false
}

// selfAssign reports whether the fresh context is assigned to the very
// variable the fix would use (ctx = context.Background()).
func (st *state) selfAssign(cur inspector.Cursor, reach ctxflow.Context) bool {
	as, ok := cur.Parent().Node().(*ast.AssignStmt)
	if !ok {
		return false
	}
	for _, l := range as.Lhs {
		if id := identOf(l); id != nil && st.pass.TypesInfo.ObjectOf(id) == reach.Obj {
			return true
		}
	}
	return false
}

// exprResolves reports whether reach.Expr, spelled at pos, names reach's
// object (no local declaration shadows it).
func (st *state) exprResolves(reach ctxflow.Context, pos token.Pos) bool {
	file := analysisutil.FileOf(st.pass, pos)
	scope := st.pass.TypesInfo.Scopes[file]
	if scope == nil {
		return false
	}
	if inner := scope.Innermost(pos); inner != nil {
		scope = inner
	}
	_, obj := scope.LookupParent(reach.Obj.Name(), pos)
	return obj == reach.Obj
}

func calleeName(info *types.Info, call *ast.CallExpr) string {
	if fn := analysisutil.Callee(info, call); fn != nil {
		return fn.Name()
	}
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}

// compatWrapper reports whether f, a function without a context parameter,
// is the context-less form of callee: Exec calling ExecContext (or
// ExecWithContext, ExecCtx).
func compatWrapper(f *ctxflow.Func, callee string) bool {
	for g := f; g != nil; g = g.Parent {
		if g.Obj == nil {
			continue
		}
		name := g.Obj.Name()
		return callee == name+"Context" || callee == name+"WithContext" || callee == name+"Ctx"
	}
	return false
}

// ownsContext reports whether the struct holding the context field c also
// holds a cancel function (context.CancelFunc, context.CancelCauseFunc, or
// a func field named like cancel): it owns the context's lifetime.
func ownsContext(c ctxflow.Context) bool {
	t := c.Obj.Type()
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		fld := st.Field(i)
		ft := fld.Type()
		if analysisutil.IsNamed(ft, "context", "CancelFunc") || analysisutil.IsNamed(ft, "context", "CancelCauseFunc") {
			return true
		}
		if _, ok := ft.Underlying().(*types.Signature); ok && strings.Contains(strings.ToLower(fld.Name()), "cancel") {
			return true
		}
	}
	return false
}

// observesEnd reports whether f itself (not a literal inside it) waits for
// or tests the end of the field context c: `<-x.ctx.Done()`, `x.ctx.Err()`.
func (st *state) observesEnd(f *ctxflow.Func, c ctxflow.Context) bool {
	info := st.pass.TypesInfo
	found := false
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		m, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || (m.Sel.Name != "Done" && m.Sel.Name != "Err") {
			return true
		}
		if x, ok := ast.Unparen(m.X).(*ast.SelectorExpr); ok && info.Uses[x.Sel] == c.Field {
			found = true
		}
		return true
	})
	return found
}

// shutdownMethod reports whether f, or the method enclosing the literal f,
// is named for shutting down (Close, Stop, Shutdown, Drain, Terminate...).
func shutdownMethod(f *ctxflow.Func) bool {
	for g := f; g != nil; g = g.Parent {
		if g.Obj == nil {
			continue
		}
		for _, w := range splitCamel(g.Obj.Name()) {
			switch strings.ToLower(w) {
			case "close", "stop", "shutdown", "drain", "terminate", "teardown", "cleanup", "destroy":
				return true
			}
		}
		return false
	}
	return false
}

var cleanupWords = map[string]bool{
	"cleanup": true, "clean": true, "rollback": true, "abort": true, "audit": true,
	"release": true, "unlock": true, "teardown": true,
	// Stopping the server or the process from a request: the request's
	// context ends with it.
	"shutdown": true, "stop": true, "exit": true, "close": true,
}

// cleanupName reports whether a camel-case word of name is a cleanup word.
func cleanupName(name string) bool {
	for _, w := range splitCamel(name) {
		if cleanupWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

func splitCamel(s string) []string {
	var words []string
	start := 0
	for i := 1; i < len(s); i++ {
		lower := func(b byte) bool { return b >= 'a' && b <= 'z' }
		upper := func(b byte) bool { return b >= 'A' && b <= 'Z' }
		if upper(s[i]) && (lower(s[i-1]) || i+1 < len(s) && lower(s[i+1]) && upper(s[i-1])) || s[i] == '_' {
			if w := strings.Trim(s[start:i], "_"); w != "" {
				words = append(words, w)
			}
			start = i
		}
	}
	if w := strings.Trim(s[start:], "_"); w != "" {
		words = append(words, w)
	}
	return words
}

// inOtherFunc reports whether the call at cur is outside the function it
// calls (a helper returning a root calls itself recursively only by
// accident; its own body is where the root is made, on purpose).
func (st *state) inOtherFunc(cur inspector.Cursor) bool {
	f := st.res.Enclosing(cur)
	fn := analysisutil.Callee(st.pass.TypesInfo, cur.Node().(*ast.CallExpr))
	return f == nil || fn == nil || f.Obj == nil || f.Obj != fn.Origin()
}
