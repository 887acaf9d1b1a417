package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// timeoutWord matches names and messages that say "timeout".
var timeoutWord = analysisutil.LazyRegexp(`(?i)time[ds]?[ _-]?out|deadline`)

// cancelWord matches names and messages that say "canceled" (or
// "cancelled"): a sentinel that names the cancellation it stands for.
var cancelWord = analysisutil.LazyRegexp(`(?i)cancel`)

// checkDoneClause reports `case <-ctx.Done(): return ErrX` where ErrX is a
// new error or sentinel that does not carry the context's end.
func (s *state) checkDoneClause(cur inspector.Cursor, cc *ast.CommClause) {
	if cc.Comm == nil {
		return
	}
	x := s.res.DoneContext(cc.Comm)
	if x == nil || !s.ctxOwned(x) || s.res.Detached(x) || s.res.DeadlineOnly(x) {
		return
	}
	s.checkReturns(cur, cc.Body, x, nil, true)
}

// checkCancelIf reports `if ctx.Err() != nil { return ErrX }` the same way,
// and `if errors.Is(err, context.Canceled) || ... { return ErrTimeout }`.
func (s *state) checkCancelIf(cur inspector.Cursor, n *ast.IfStmt) {
	t, ok := s.res.CancelTestOf(n.Cond)
	if !ok || !t.Canceled {
		return
	}
	if t.Ctx != nil {
		if !s.ctxOwned(t.Ctx) || s.res.Detached(t.Ctx) || s.res.DeadlineOnly(t.Ctx) {
			return
		}
		// Only a test that admits both ends hides which one happened
		// behind a new error; a test for Canceled alone may name it.
		s.checkReturns(cur, n.Body.List, t.Ctx, t.Err, t.Deadline)
		return
	}
	if t.Err != nil {
		s.checkReturns(cur, n.Body.List, nil, t.Err, false)
	}
}

// checkReturns inspects the top-level returns of a branch taken when ctx
// (or the error errExpr) reports cancellation. generic says a new error
// that is not a timeout is reported too.
func (s *state) checkReturns(cur inspector.Cursor, body []ast.Stmt, ctx, errExpr ast.Expr, generic bool) {
	f := s.res.Enclosing(cur)
	if f == nil {
		return
	}
	s.checkPassedOn(body, ctx, errExpr, generic)
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return
	}
	for _, st := range body {
		ret, ok := st.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != f.Sig.Results().Len() {
			continue
		}
		e := ret.Results[idx]
		if analysisutil.WalkSkipReturn(s.info, cur, e) {
			continue // the walk returns nil for it: swallowcancel's
		}
		isNilVar := s.nilAt(f, ret)
		kind, name := s.newError(e, isNilVar)
		if kind == "" {
			s.checkStaleError(f, ret, e, ctx, errExpr)
			continue
		}
		timeout := timeoutWord().MatchString(name)
		if !timeout && !generic {
			continue
		}
		if !timeout && (kind == "sentinel" || strings.HasPrefix(kind, "error that wraps only")) && cancelWord().MatchString(name) {
			// return ErrBootCanceled: a sentinel of its own that names the
			// cancellation, beside the package's timeout sentinel; callers
			// tell the two apart by it (a documented translation).
			continue
		}
		what := endOf(ctx, errExpr)
		if op := s.nilWrapped(e, isNilVar); op != nil {
			s.rep.Report(analysis.Diagnostic{
				Pos: e.Pos(), End: e.End(),
				Message: fmt.Sprintf("%s wraps %s, which is always nil here, instead of %s: the error wraps nothing, so errors.Is(err, context.Canceled) is false for callers; wrap the cause",
					types.ExprString(e), types.ExprString(op), what),
				SuggestedFixes: s.replaceNilFixes(op, ctx, errExpr),
			})
			continue
		}
		var msg string
		if timeout {
			msg = fmt.Sprintf("%s reports %s as a timeout: a canceled request (the client left, shutdown) is counted and retried as a timeout, and errors.Is(err, context.Canceled) is false; wrap the cause too", types.ExprString(e), what)
		} else {
			msg = fmt.Sprintf("%s replaces %s with a new %s, so callers cannot tell cancellation from failure: errors.Is(err, context.Canceled) is false; wrap the cause", types.ExprString(e), what, kind)
		}
		s.rep.Report(analysis.Diagnostic{
			Pos:            e.Pos(),
			End:            e.End(),
			Message:        msg,
			SuggestedFixes: s.wrapCauseFixes(e, ctx, errExpr),
		})
	}
}

// checkStaleError reports a branch taken on the context's end that
// returns a local error variable which, on some path, still holds a new
// error made before the end (the last attempt's failure of a retry loop,
// `lastErr = &statusError{code}`): the caller is told of that failure, not
// of the cancellation, and errors.Is(err, context.Canceled) is false. The
// variable's values at the return are its reaching definitions; one that
// is a new error (errors.New, fmt.Errorf without %w, a sentinel, an error
// literal) is enough.
func (s *state) checkStaleError(f *ctxflow.Func, ret *ast.ReturnStmt, e, ctx, errExpr ast.Expr) {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := s.info.Uses[id].(*types.Var)
	if !ok || v.Pkg() != s.pass.Pkg || v.Parent() == v.Pkg().Scope() || !analysisutil.IsError(v.Type()) {
		return
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return
	}
	defs, _, ok := g.DefsReaching(v, ret)
	if !ok {
		return
	}
	for _, d := range defs {
		val := g.DefValue(d, v)
		if val == nil {
			continue
		}
		kind, name := s.newError(val, nil)
		if kind == "" {
			continue
		}
		what := endOf(ctx, errExpr)
		line := s.pass.Fset.Position(d.Pos()).Line
		desc := kind
		if kind == "sentinel" {
			desc = "sentinel " + types.ExprString(val)
		}
		msg := fmt.Sprintf("%s can still hold the %s set at line %d when this branch returns it in place of %s: the caller is told of that failure and errors.Is(err, context.Canceled) is false; wrap the cause too",
			id.Name, desc, line, what)
		if timeoutWord().MatchString(name) {
			msg = fmt.Sprintf("%s can still hold the timeout %s set at line %d when this branch returns it in place of %s: a canceled request is reported as a timeout and errors.Is(err, context.Canceled) is false; wrap the cause too",
				id.Name, desc, line, what)
		}
		s.rep.Report(analysis.Diagnostic{
			Pos: e.Pos(), End: e.End(),
			Message:        msg,
			Related:        []analysis.RelatedInformation{{Pos: val.Pos(), End: val.End(), Message: id.Name + " is set to a new error here"}},
			SuggestedFixes: s.wrapCauseFixes(e, ctx, errExpr),
		})
		return
	}
}

// newError classifies an error expression that carries nothing of a
// context: "error" for errors.New/fmt.Errorf, "sentinel" for a package
// variable, "error value" for a composite literal. It returns "" for nil,
// carriers, local variables and other calls. name is the text to test for
// "timeout": the sentinel's name or the message. isNilVar, when not nil,
// tells which operands are nil where e is evaluated: a %w of one wraps
// nothing.
func (s *state) newError(e ast.Expr, isNilVar func(ast.Expr) bool) (kind, name string) {
	e = ast.Unparen(e)
	if isNil(s.info, e) || s.res.MayCarryCancel(e) {
		return "", ""
	}
	switch e := e.(type) {
	case *ast.CallExpr:
		if !analysisutil.IsCallToFunc(s.info, e, "errors", "New") && !analysisutil.IsCallToFunc(s.info, e, "fmt", "Errorf") {
			// Another constructor: a timeout only when an argument names
			// one (status.Error(codes.DeadlineExceeded, ...)).
			for _, a := range e.Args {
				if id := nameOf(a); id != "" && timeoutWord().MatchString(id) && ctxflow.ContextSentinel(s.info, a) == "" {
					return "error", id
				}
			}
			return "", ""
		}
		// A fmt.Errorf that wraps anything (%w) keeps some identity; one
		// that formats the context's error with %v is the %v finding.
		// So does one that wraps only package sentinels of its own
		// (`fmt.Errorf("%w after %s", ErrTimeout, d)`): the sentinel's
		// identity is kept, the context's is not.
		var wrapped, names []string
		for _, sp := range spansOf(s.info, e) {
			if sp.verb != 'w' {
				continue
			}
			if sp.arg < 0 || sp.arg+1 >= len(e.Args) {
				return "", ""
			}
			op := e.Args[sp.arg+1]
			if isNilVar != nil && isNilVar(op) {
				continue
			}
			if k, n := s.newError(op, nil); k == "sentinel" {
				wrapped = append(wrapped, n)
				names = append(names, types.ExprString(op))
				continue
			}
			return "", ""
		}
		for _, a := range e.Args[1:] {
			if c, _ := s.carrierOf(a); c != nil {
				return "", ""
			}
		}
		msg := ""
		if len(e.Args) > 0 {
			if tv, ok := s.info.Types[e.Args[0]]; ok && tv.Value != nil {
				msg = tv.Value.ExactString()
			}
		}
		if len(wrapped) > 0 {
			return "error that wraps only " + strings.Join(names, " and "), strings.Join(append(wrapped, msg), " ")
		}
		return "error", msg
	case *ast.Ident, *ast.SelectorExpr:
		v := analysisutil.PackageVar(s.info, e)
		if v == nil || ctxflow.ContextSentinel(s.info, e) != "" {
			return "", ""
		}
		if analysisutil.HasMethod(v.Type(), "Is") || analysisutil.HasMethod(v.Type(), "Unwrap") {
			return "", "" // it may match the context's errors itself
		}
		return "sentinel", v.Name() + " " + s.sentinelMessage(v)
	case *ast.UnaryExpr:
		if _, ok := e.X.(*ast.CompositeLit); ok && e.Op == token.AND {
			return s.newError(e.X, isNilVar)
		}
	case *ast.CompositeLit:
		t := s.info.TypeOf(e)
		if t == nil || analysisutil.HasMethod(t, "Is") {
			return "", ""
		}
		if analysisutil.HasMethod(t, "Unwrap") {
			// &RPCTimeoutError{Method: m} with its Cause unset: its Unwrap
			// can only give what the literal leaves nil or a constant.
			if consts, ok := s.unwrapsUnset(t, e); ok {
				return "error value", types.ExprString(e.Type) + " " + strings.Join(consts, " ")
			}
			return "", ""
		}
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				elt = kv.Value
			}
			if analysisutil.IsError(s.info.TypeOf(elt)) && s.res.MayCarryCancel(elt) {
				return "", "" // it stores the end; a missing Unwrap is the opaque-type finding
			}
		}
		return "error value", types.ExprString(e.Type)
	}
	return "", ""
}

// nilWrapped returns the operand of a fmt.Errorf call e that a %w verb
// wraps and that is nil where e is evaluated, or nil.
func (s *state) nilWrapped(e ast.Expr, isNilVar func(ast.Expr) bool) ast.Expr {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || !analysisutil.IsCallToFunc(s.info, call, "fmt", "Errorf") {
		return nil
	}
	for _, sp := range spansOf(s.info, call) {
		if sp.verb == 'w' && sp.arg >= 0 && sp.arg+1 < len(call.Args) && isNilVar(call.Args[sp.arg+1]) {
			return call.Args[sp.arg+1]
		}
	}
	return nil
}

// replaceNilFixes puts the context's cause (or the cancellation error)
// where the always-nil operand op is.
func (s *state) replaceNilFixes(op, ctx, errExpr ast.Expr) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, op.Pos())
	if file == nil {
		return nil
	}
	cause, edits, ok := s.causeText(file, op.Pos(), ctx, errExpr)
	if !ok {
		return nil
	}
	edits = append([]analysis.TextEdit{{Pos: op.Pos(), End: op.End(), NewText: []byte(cause)}}, edits...)
	return []analysis.SuggestedFix{{Message: "Wrap the cause instead of the nil " + types.ExprString(op), TextEdits: edits}}
}

// causeText returns the expression a fix wraps for the end of ctx
// (context.Cause(ctx), with the import it needs at pos) or, without a
// context, the cancellation error errExpr itself.
func (s *state) causeText(file *ast.File, pos token.Pos, ctx, errExpr ast.Expr) (string, []analysis.TextEdit, bool) {
	switch {
	case ctx != nil:
		c := s.source(ctx)
		if c == "" {
			return "", nil, false
		}
		name, edits := analysisutil.AddImport(s.info, file, pos, "context")
		return name + ".Cause(" + c + ")", edits, true
	case errExpr != nil:
		c := s.source(errExpr)
		return c, nil, c != ""
	}
	return "", nil, false
}

// unwrapsUnset reports whether the composite literal lit of type t (a type
// of this package with an Unwrap method) sets none of the fields its
// Unwrap can return, so Unwrap gives nil or a constant: it returns the
// context sentinels among those constants. False when Unwrap returns
// anything else (a call, a variable, a field the literal sets).
func (s *state) unwrapsUnset(t types.Type, lit *ast.CompositeLit) ([]string, bool) {
	obj, _, _ := types.LookupFieldOrMethod(t, true, s.pass.Pkg, "Unwrap")
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() != s.pass.Pkg {
		return nil, false
	}
	decl := s.res.DeclOf(fn)
	if decl == nil || decl.Sig.Recv() == nil {
		return nil, false
	}
	recv := decl.Sig.Recv()
	set := map[string]bool{}
	st, _ := derefNamed(t).Underlying().(*types.Struct)
	if st == nil {
		return nil, false
	}
	for i, elt := range lit.Elts {
		name, v := fieldOf(st, i, elt)
		if isNil(s.info, v) {
			continue
		}
		set[name] = true
	}
	var consts []string
	ok = true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				r = ast.Unparen(r)
				if isNil(s.info, r) {
					continue
				}
				if c := ctxflow.ContextSentinel(s.info, r); c != "" {
					consts = append(consts, "context."+c)
					continue
				}
				sel, isSel := r.(*ast.SelectorExpr)
				if isSel {
					if id, isID := ast.Unparen(sel.X).(*ast.Ident); isID && s.info.Uses[id] == types.Object(recv) && !set[sel.Sel.Name] {
						if fs, ok := s.info.Selections[sel]; ok && fs.Kind() == types.FieldVal {
							continue // a field the literal leaves nil
						}
					}
				}
				ok = false
			}
		}
		return ok
	})
	return consts, ok
}

// derefNamed returns the type a pointer points to, or t.
func derefNamed(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// hasWrapVerb reports whether the fmt.Errorf call has a %w verb.
func hasWrapVerb(info *types.Info, call *ast.CallExpr) bool {
	for _, sp := range spansOf(info, call) {
		if sp.verb == 'w' {
			return true
		}
	}
	return false
}

// nilAt returns the test of whether an operand is a local variable that
// holds nil whenever control reaches at, a statement of f (flow.NilAt).
func (s *state) nilAt(f *ctxflow.Func, at ast.Stmt) func(ast.Expr) bool {
	return func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		v, ok := s.info.Uses[id].(*types.Var)
		if !ok {
			return false
		}
		g := s.graphs.Func(f.Node)
		return g != nil && g.NilAt(v, at)
	}
}

// sentinelMessage returns the message of a package variable initialised
// with errors.New("...") in this package, or "".
func (s *state) sentinelMessage(v *types.Var) string {
	if v.Pkg() != s.pass.Pkg {
		return ""
	}
	for _, file := range s.pass.Files {
		if v.Pos() < file.FileStart || v.Pos() > file.FileEnd {
			continue
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Pos() != v.Pos() || i >= len(vs.Values) {
						continue
					}
					if call, ok := vs.Values[i].(*ast.CallExpr); ok && len(call.Args) > 0 {
						if tv, ok := s.info.Types[call.Args[0]]; ok && tv.Value != nil {
							return tv.Value.ExactString()
						}
					}
				}
			}
		}
	}
	return ""
}

// nameOf returns the name an identifier or selector expression ends in.
func nameOf(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func spansOf(info *types.Info, call *ast.CallExpr) []verbSpan {
	if len(call.Args) == 0 {
		return nil
	}
	return formatSpans(info, call)
}

// ctxOwned reports whether the context expression x belongs to the
// function's caller: a parameter or local variable (or r.Context()), not a
// field or package variable, whose end means the object itself closed.
func (s *state) ctxOwned(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		v, ok := s.info.ObjectOf(x).(*types.Var)
		return ok && !v.IsField() && v.Parent() != nil && v.Pkg() != nil && v.Parent() != v.Pkg().Scope()
	case *ast.CallExpr:
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		return ok && analysisutil.IsHTTPRequest(s.info.TypeOf(sel.X)) && sel.Sel.Name == "Context"
	}
	return false
}

// wrapCauseFixes rewrites a new error e so that it also carries the
// context's end:
//
//	ErrX                -> fmt.Errorf("%w: %w", ErrX, context.Cause(ctx))   (Go 1.20)
//	errors.New("msg")   -> fmt.Errorf("msg: %w", context.Cause(ctx))
//	fmt.Errorf("f", a)  -> fmt.Errorf("f: %w", a, context.Cause(ctx))
//
// and, when the package uses the runtime, stop.Wrap(ctx, e).
func (s *state) wrapCauseFixes(e, ctx, errExpr ast.Expr) []analysis.SuggestedFix {
	file := analysisutil.FileOf(s.pass, e.Pos())
	if file == nil {
		return nil
	}
	cause, causeEdits, ok := s.causeText(file, e.Pos(), ctx, errExpr)
	if !ok {
		return nil
	}
	fmtName, fmtEdits := analysisutil.AddImport(s.info, file, e.Pos(), "fmt")
	var text string
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		if s.atLeast(e.Pos(), "go1.20") {
			text = fmt.Sprintf("%s.Errorf(\"%%w: %%w\", %s, %s)", fmtName, s.source(x), cause)
		}
	case *ast.CallExpr:
		if len(x.Args) == 0 || !analysisutil.IsCallToFunc(s.info, x, "errors", "New") && !analysisutil.IsCallToFunc(s.info, x, "fmt", "Errorf") {
			break // another constructor: only stop.Wrap below
		}
		lit, ok := ast.Unparen(x.Args[0]).(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			break
		}
		if hasWrapVerb(s.info, x) && !s.atLeast(e.Pos(), "go1.20") {
			break // a second %w needs Go 1.20
		}
		body, q := lit.Value[1:len(lit.Value)-1], lit.Value[:1]
		args := ""
		if analysisutil.IsCallToFunc(s.info, x, "errors", "New") {
			body = strings.ReplaceAll(body, "%", "%%")
		} else {
			for _, a := range x.Args[1:] {
				args += s.source(a) + ", "
			}
		}
		text = fmt.Sprintf("%s.Errorf(%s%s: %%w%s, %s%s)", fmtName, q, body, q, args, cause)
	}
	var fixes []analysis.SuggestedFix
	if len(fmtEdits) > 0 && len(causeEdits) > 0 {
		text = "" // two imports at one place: leave it to the user
	}
	if text != "" {
		edits := []analysis.TextEdit{{Pos: e.Pos(), End: e.End(), NewText: []byte(text)}}
		edits = append(edits, fmtEdits...)
		edits = append(edits, causeEdits...)
		fixes = append(fixes, analysis.SuggestedFix{Message: "Wrap the cause with %w", TextEdits: edits})
	}
	if s.rt && ctx != nil {
		name, edits := analysisutil.AddImport(s.info, file, e.Pos(), ctxflow.RuntimeModule+"/stop")
		if src := s.source(e); src != "" {
			edits = append([]analysis.TextEdit{{Pos: e.Pos(), End: e.End(), NewText: []byte(name + ".Wrap(" + s.source(ctx) + ", " + src + ")")}}, edits...)
			fixes = append(fixes, analysis.SuggestedFix{Message: "Attach the context's end with stop.Wrap", TextEdits: edits})
		}
	}
	return fixes
}

// endOf describes, for messages, the end of a context that a new error
// replaces: that of ctx when it is known, else the cancellation errExpr
// carries.
func endOf(ctx, errExpr ast.Expr) string {
	switch {
	case ctx != nil:
		return types.ExprString(ctx) + "'s end"
	case errExpr != nil:
		return "the cancellation in " + types.ExprString(errExpr)
	}
	return "the context's end"
}
