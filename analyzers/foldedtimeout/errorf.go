package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkCall dispatches calls: fmt.Errorf formatting a carrier without %w,
// errors.New of a carrier's text, and errors.Is with swapped arguments.
func (s *state) checkCall(cur inspector.Cursor, call *ast.CallExpr) {
	if analysisutil.IsBuiltin(s.info, call, "append") {
		s.checkOpaqueAppend(cur, call)
		return
	}
	fn := analysisutil.Callee(s.info, call)
	switch {
	case fn == nil:
	case analysisutil.IsFunc(fn, "fmt", "Errorf"):
		if len(call.Args) == 1 {
			s.checkStringified(cur, call)
			return
		}
		s.checkErrorf(cur, call)
	case analysisutil.IsFunc(fn, "errors", "New"):
		s.checkStringified(cur, call)
	case analysisutil.IsFunc(fn, "errors", "Is"):
		s.checkSwappedIs(call)
	case analysisutil.IsFunc(fn, "errors", "As"):
		s.checkAsSentinel(call)
	case analysisutil.IsFunc(fn, "strings", "Contains"), analysisutil.IsFunc(fn, "strings", "HasSuffix"):
		s.checkTextCompare(call)
	case analysisutil.IsFunc(fn, "time", "AfterFunc"):
		s.checkAfterFunc(cur, call)
	}
}

// carrierOf returns the error expression behind a formatting operand: the
// operand itself when it may hold a context's error that errors.Is can
// match (ctxflow's HoldsContextError: not a gRPC status, not a value of a
// type without Unwrap), or X for X.Error() when X may; nil otherwise. errorCall is set for the X.Error() form.
func (s *state) carrierOf(arg ast.Expr) (carrier ast.Expr, errorCall bool) {
	arg = ast.Unparen(arg)
	if analysisutil.IsError(s.info.TypeOf(arg)) {
		if s.res.HoldsContextError(arg) && !s.narrowedFree(arg) {
			return arg, false
		}
		return nil, false
	}
	call, ok := arg.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Error" || !analysisutil.IsError(s.info.TypeOf(sel.X)) {
		return nil, false
	}
	if s.res.HoldsContextError(sel.X) && !s.narrowedFree(sel.X) {
		return sel.X, true
	}
	return nil, false
}

// narrowedFree reports whether e, an error variable, is known at its place
// to hold a value of an identity-free type (ctxflow's IdentityFreeType: no
// Unwrap, no Is that matches a context's error): inside `if x, ok :=
// err.(*api.Error); ok ... {` or the `case *api.Error:` clause of a type
// switch on err, err is that type, a server's decoded error and not a
// cancellation.
func (s *state) narrowedFree(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := s.info.Uses[id].(*types.Var)
	if !ok {
		return false
	}
	cur, ok := s.ins.Root().FindNode(id)
	if !ok {
		return false
	}
	asserts := func(x ast.Expr) (types.Type, bool) {
		ta, ok := ast.Unparen(x).(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			return nil, false
		}
		if xid, ok := ast.Unparen(ta.X).(*ast.Ident); !ok || s.info.Uses[xid] != v {
			return nil, false
		}
		return s.info.TypeOf(ta.Type), true
	}
	for c := cur.Parent(); c.Node() != nil; c = c.Parent() {
		switch n := c.Node().(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.IfStmt:
			as, ok := n.Init.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 || !inside(id, n.Body) {
				continue
			}
			t, ok := asserts(as.Rhs[0])
			okID, isID := as.Lhs[1].(*ast.Ident)
			if !ok || !isID || !condRequires(s.info, n.Cond, s.info.ObjectOf(okID)) {
				continue
			}
			if s.assignedBetween(v, n.Body, id) {
				return false
			}
			return s.res.IdentityFreeType(t)
		case *ast.CaseClause:
			sw, ok := c.Parent().Parent().Node().(*ast.TypeSwitchStmt)
			if !ok || len(n.List) != 1 {
				continue
			}
			var x ast.Expr
			switch a := sw.Assign.(type) {
			case *ast.AssignStmt:
				if len(a.Rhs) == 1 {
					x = a.Rhs[0]
				}
			case *ast.ExprStmt:
				x = a.X
			}
			ta, ok := ast.Unparen(x).(*ast.TypeAssertExpr)
			if !ok {
				continue
			}
			if xid, ok := ast.Unparen(ta.X).(*ast.Ident); !ok || s.info.Uses[xid] != v {
				continue
			}
			if s.assignedBetween(v, n, id) {
				return false
			}
			return s.res.IdentityFreeType(s.info.TypeOf(n.List[0]))
		}
	}
	return false
}

func inside(n, root ast.Node) bool { return root.Pos() <= n.Pos() && n.End() <= root.End() }

// condRequires reports whether cond can hold only if the bool variable ok
// does: ok itself, or ok on either side of &&.
func condRequires(info *types.Info, cond ast.Expr, ok types.Object) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.Ident:
		return info.Uses[c] == ok
	case *ast.BinaryExpr:
		return c.Op == token.LAND && (condRequires(info, c.X, ok) || condRequires(info, c.Y, ok))
	}
	return false
}

// assignedBetween reports whether v is assigned inside root by a statement
// that ends before use (not the one whose right side holds use: err =
// errors.New(err.Error() + "...") reads the narrowed value).
func (s *state) assignedBetween(v *types.Var, root ast.Node, use ast.Node) bool {
	found := false
	ast.Inspect(root, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as.End() <= use.Pos() {
			for _, l := range as.Lhs {
				if lid, ok := ast.Unparen(l).(*ast.Ident); ok && s.info.ObjectOf(lid) == v {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// wrapsContextErr reports whether the call wraps with %w the context's own
// error (ctx.Err(), context.Cause(ctx), or a variable only ever assigned
// those): fmt.Errorf("%w (fetch: %v)", ctx.Err(), err) keeps the
// cancellation's identity whatever happens to err's.
func (s *state) wrapsContextErr(call *ast.CallExpr, spans []verbSpan) bool {
	for _, sp := range spans {
		if sp.verb == 'w' && sp.arg >= 0 && sp.arg < len(call.Args)-1 && s.res.CtxEndOf(call.Args[1+sp.arg]) != nil {
			return true
		}
	}
	return false
}

// checkErrorf reports fmt.Errorf("...: %v", err) where err may carry
// cancellation and the result is propagated.
func (s *state) checkErrorf(cur inspector.Cursor, call *ast.CallExpr) {
	spans := formatSpans(s.info, call)
	if spans == nil {
		return
	}
	type fold struct {
		span    verbSpan
		carrier ast.Expr
		errCall bool
	}
	var folds []fold
	wraps := 0
	for _, sp := range spans {
		if sp.verb == 'w' {
			wraps++
			continue
		}
		if sp.arg < 0 || sp.arg >= len(call.Args)-1 || strings.IndexByte("vsq", sp.verb) < 0 {
			continue
		}
		arg := call.Args[1+sp.arg]
		if c, errCall := s.carrierOf(arg); c != nil {
			folds = append(folds, fold{sp, c, errCall})
		}
	}
	// A carrier that is also wrapped with %w elsewhere in the call keeps
	// its identity: fmt.Errorf("%w (%v)", err, err).
	wrapped := make(map[string]bool)
	for _, sp := range spans {
		if sp.verb == 'w' && sp.arg >= 0 && sp.arg < len(call.Args)-1 {
			wrapped[types.ExprString(call.Args[1+sp.arg])] = true
		}
	}
	folds = slices.DeleteFunc(folds, func(f fold) bool { return wrapped[types.ExprString(f.carrier)] })
	if len(folds) == 0 && wraps == 0 {
		// fmt.Errorf("%d steps failed: %s", n, strings.Join(msgs, "; ")),
		// msgs holding err.Error(): the text alone reaches the new error.
		for _, sp := range spans {
			if sp.arg < 0 || sp.arg >= len(call.Args)-1 || strings.IndexByte("vsq", sp.verb) < 0 {
				continue
			}
			arg := call.Args[1+sp.arg]
			if _, errCall := s.carrierOf(arg); errCall {
				continue
			}
			if c := s.textOf(arg); c != nil {
				s.reportText(cur, call, arg, c)
				return
			}
		}
	}
	if len(folds) == 0 || !s.propagated(cur) || s.cancelHandledBefore(cur) || s.wrapsContextErr(call, spans) {
		return
	}
	first := folds[0]
	arg := call.Args[1+first.span.arg]
	d := analysis.Diagnostic{
		Pos: arg.Pos(),
		End: arg.End(),
		Message: fmt.Sprintf("fmt.Errorf formats %s with %%%c, so the cancellation it may carry is lost: errors.Is(err, context.Canceled) is false for callers; use %%w",
			types.ExprString(first.carrier), first.span.verb),
	}
	// The fix needs a literal format and, for several %w, Go 1.20.
	severalOK := wraps+len(folds) == 1 || s.atLeast(call.Pos(), "go1.20")
	if !severalOK {
		// Before Go 1.20 fmt.Errorf wraps one error only: say so, rather
		// than advise what the file's Go version does not allow.
		d.Message = fmt.Sprintf("fmt.Errorf formats %s with %%%c, so the cancellation it may carry is lost: errors.Is(err, context.Canceled) is false for callers; wrapping it too needs a second %%w, which takes Go 1.20 (this file is older)",
			types.ExprString(first.carrier), first.span.verb)
	}
	lit, ok := ast.Unparen(call.Args[0]).(*ast.BasicLit)
	fixable := ok && lit.Kind == token.STRING && (lit.Value[0] == '`' || !strings.Contains(lit.Value, `\`)) && severalOK
	if fixable {
		var edits []analysis.TextEdit
		for _, f := range folds {
			if !f.span.plain {
				edits = nil
				break
			}
			p := lit.Pos() + 1 + token.Pos(f.span.verbOff)
			edits = append(edits, analysis.TextEdit{Pos: p, End: p + 1, NewText: []byte("w")})
			if f.errCall {
				src := s.source(f.carrier)
				if src == "" {
					edits = nil
					break
				}
				a := call.Args[1+f.span.arg]
				edits = append(edits, analysis.TextEdit{Pos: a.Pos(), End: a.End(), NewText: []byte(src)})
			}
		}
		if len(edits) > 0 {
			d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Wrap the error with %w", TextEdits: edits}}
		}
	}
	s.fold(cur, d)
}

// checkStringified reports errors.New(err.Error()), fmt.Errorf(err.Error())
// and errors.New("op: " + err.Error()) where err may carry cancellation.
func (s *state) checkStringified(cur inspector.Cursor, call *ast.CallExpr) {
	if len(call.Args) != 1 {
		return
	}
	if tv, ok := s.info.Types[call.Args[0]]; ok && tv.Value != nil {
		return // a constant message
	}
	arg := ast.Unparen(call.Args[0])
	var carrier ast.Expr
	var prefix *ast.BasicLit
	var sprintf *ast.CallExpr
	switch a := arg.(type) {
	case *ast.CallExpr:
		if c, errCall := s.carrierOf(a); c != nil && errCall {
			carrier = c
		} else if analysisutil.IsCallToFunc(s.info, a, "fmt", "Sprintf") && len(a.Args) > 1 {
			// errors.New(fmt.Sprintf("op: %v", err))
			for _, x := range a.Args[1:] {
				if c, _ := s.carrierOf(x); c != nil {
					carrier, sprintf = c, a
					break
				}
			}
		}
	case *ast.BinaryExpr:
		// "prefix: " + err.Error()
		if a.Op == token.ADD {
			if c, errCall := s.carrierOf(a.Y); c != nil && errCall {
				carrier = c
				prefix, _ = ast.Unparen(a.X).(*ast.BasicLit)
			}
		}
	}
	if carrier == nil {
		// errors.New(msg), msg built from err.Error() on the way.
		if c := s.textOf(arg); c != nil {
			s.reportText(cur, call, arg, c)
		}
		return
	}
	if !s.propagated(cur) || s.cancelHandledBefore(cur) {
		return
	}
	d := analysis.Diagnostic{
		Pos: call.Pos(),
		End: call.End(),
		Message: fmt.Sprintf("%s builds a new error from the text of %s, so the cancellation it may carry is lost: errors.Is(err, context.Canceled) is false for callers",
			types.ExprString(call.Fun), types.ExprString(carrier)),
	}
	src := s.source(carrier)
	switch {
	case src == "":
	case sprintf != nil:
		// errors.New(fmt.Sprintf(f, args)) -> fmt.Errorf(f', args) with the
		// carrier's verbs turned into %w.
		if !analysisutil.IsCallToFunc(s.info, call, "errors", "New") {
			break
		}
		lit, ok := ast.Unparen(sprintf.Args[0]).(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || (lit.Value[0] != '`' && strings.Contains(lit.Value, `\`)) {
			break
		}
		file := analysisutil.FileOf(s.pass, call.Pos())
		fmtName := analysisutil.ImportName(file, "fmt")
		if fmtName == "" {
			break
		}
		edits := []analysis.TextEdit{
			{Pos: call.Pos(), End: sprintf.Fun.End(), NewText: []byte(fmtName + ".Errorf")},
			{Pos: sprintf.Rparen, End: sprintf.Rparen + 1},
		}
		wraps := 0
		for _, sp := range formatSpans(s.info, sprintf) {
			if sp.arg < 0 || sp.arg >= len(sprintf.Args)-1 {
				continue
			}
			c, errCall := s.carrierOf(sprintf.Args[1+sp.arg])
			if c == nil || !sp.plain || strings.IndexByte("vs", sp.verb) < 0 {
				continue
			}
			wraps++
			p := lit.Pos() + 1 + token.Pos(sp.verbOff)
			edits = append(edits, analysis.TextEdit{Pos: p, End: p + 1, NewText: []byte("w")})
			if errCall {
				a := sprintf.Args[1+sp.arg]
				edits = append(edits, analysis.TextEdit{Pos: a.Pos(), End: a.End(), NewText: []byte(s.source(c))})
			}
		}
		if wraps == 1 || (wraps > 1 && s.atLeast(call.Pos(), "go1.20")) {
			d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Wrap the error with %w", TextEdits: edits}}
		}
	case prefix == nil:
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   "Return the error itself",
			TextEdits: []analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte(src)}},
		}}
	case prefix.Kind == token.STRING && !strings.Contains(prefix.Value, `\`):
		file := analysisutil.FileOf(s.pass, call.Pos())
		if file == nil {
			break
		}
		name, edits := analysisutil.AddImport(s.info, file, call.Pos(), "fmt")
		body := strings.ReplaceAll(prefix.Value[1:len(prefix.Value)-1], "%", "%%")
		q := prefix.Value[:1]
		text := fmt.Sprintf("%s.Errorf(%s%s%%w%s, %s)", name, q, body, q, src)
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   "Wrap the error with %w",
			TextEdits: append([]analysis.TextEdit{{Pos: call.Pos(), End: call.End(), NewText: []byte(text)}}, edits...),
		}}
	}
	s.rep.Report(d)
}

// reportText reports call, a new error made from arg, which holds the text
// of carrier (through local strings, string slices or builders). There is
// no fix: the errors behind the text must be kept as errors (collected and
// joined with errors.Join, or wrapped with %w).
func (s *state) reportText(cur inspector.Cursor, call *ast.CallExpr, arg, carrier ast.Expr) {
	if !s.propagated(cur) || s.cancelHandledBefore(cur) {
		return
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: arg.Pos(),
		End: arg.End(),
		Message: fmt.Sprintf("%s builds a new error from %s, which holds the text of %s: the cancellation %s may carry is lost, and errors.Is(err, context.Canceled) is false for callers; keep the errors (errors.Join, %%w)",
			types.ExprString(call.Fun), types.ExprString(arg), types.ExprString(carrier), types.ExprString(carrier)),
	})
}

// checkSwappedIs reports errors.Is(context.Canceled, err): the arguments
// are swapped, and the test is false even for a bare context.Canceled.
func (s *state) checkSwappedIs(call *ast.CallExpr) {
	if len(call.Args) != 2 || s.sentinel(call.Args[0]) == "" || s.sentinel(call.Args[1]) != "" {
		return
	}
	d := analysis.Diagnostic{
		Pos:     call.Pos(),
		End:     call.End(),
		Message: fmt.Sprintf("errors.Is(%s, %s) has its arguments swapped: it asks whether context.%s wraps %s, which is false, so the cancellation goes unrecognised", types.ExprString(call.Args[0]), types.ExprString(call.Args[1]), s.sentinel(call.Args[0]), types.ExprString(call.Args[1])),
	}
	a, b := s.source(call.Args[0]), s.source(call.Args[1])
	if a != "" && b != "" {
		d.SuggestedFixes = []analysis.SuggestedFix{{
			Message: "Swap the arguments",
			TextEdits: []analysis.TextEdit{
				{Pos: call.Args[0].Pos(), End: call.Args[0].End(), NewText: []byte(b)},
				{Pos: call.Args[1].Pos(), End: call.Args[1].End(), NewText: []byte(a)},
			},
		}}
	}
	s.rep.Report(d)
}

// verbSpan is one formatting directive of a literal format string.
type verbSpan struct {
	arg     int  // operand index (0 = first operand after the format), -1 for none
	verb    byte // the verb letter
	verbOff int  // offset of the verb letter in the string's value
	plain   bool // no flags, width or precision: "%v" or "%[2]v"
}

// formatSpans parses the constant format of a Printf-like call whose format
// is the first argument. It returns nil when the format is not a constant.
func formatSpans(info *types.Info, call *ast.CallExpr) []verbSpan {
	tv, ok := info.Types[call.Args[0]]
	if !ok || tv.Value == nil {
		return nil
	}
	if tv.Value.Kind() != constant.String {
		return nil
	}
	format := constant.StringVal(tv.Value)
	if lit, ok := ast.Unparen(call.Args[0]).(*ast.BasicLit); ok && lit.Kind == token.STRING {
		format = lit.Value[1 : len(lit.Value)-1]
		if lit.Value[0] != '`' && strings.Contains(format, `\`) {
			// Escapes shift offsets; use the value for the verbs only.
			format = constant.StringVal(tv.Value)
		}
	}
	var spans []verbSpan
	for _, v := range ctxflow.ParseFormat(format) {
		spans = append(spans, verbSpan{arg: v.Arg, verb: v.Letter, verbOff: v.Offset, plain: v.Plain})
	}
	return spans
}
