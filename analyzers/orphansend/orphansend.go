package orphansend

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct{}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	c := &checker{cfg: cfg}
	return &analysis.Analyzer{
		Name:     "orphansend",
		Doc:      analysisutil.MustExtractDoc(doc, "orphansend"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/orphansend.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, goroutines.Analyzer, ctxflow.Analyzer, directives.Analyzer},
		Run:      analysisutil.Finishing(c.run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

type checker struct{ cfg Config }

func (c *checker) run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[goroutines.Analyzer].(*goroutines.Lazy).Get()
	flow := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	sends := false
	for range ins.Root().Preorder((*ast.SendStmt)(nil)) {
		sends = true
		break
	}
	if len(res.Orphans) == 0 && len(res.Stalls) == 0 && len(res.Futures) == 0 && len(res.Streams) == 0 && len(res.Registered) == 0 && !sends {
		return analysisutil.NothingToReport(pass), nil
	}
	rep := analysisutil.NewReporter(pass)
	var unguarded map[*ast.SendStmt]bool
	if flow.ImportsContext {
		unguarded = checkUnguarded(pass, ins, flow, rep)
	}
	checkGiveUp(pass, ins, flow, rep, unguarded)
	for _, o := range res.Orphans {
		rep.Report(orphanDiagnostic(pass, flow, o))
	}
	for _, s := range res.Stalls {
		rep.Report(stallDiagnostic(pass, s))
	}
	for _, f := range res.Futures {
		rep.Report(futureDiagnostic(f))
	}
	for _, st := range res.Streams {
		rep.Report(streamDiagnostic(pass, flow, st))
	}
	for _, r := range res.Registered {
		rep.Report(registeredDiagnostic(pass, r))
	}
	rep.Finish()
	return nil, nil
}

func orphanDiagnostic(pass *analysis.Pass, flow *ctxflow.Result, o *goroutines.Orphan) analysis.Diagnostic {
	// The send when it is in the goroutine's literal; the go statement when
	// it is in a called function (which other callers may use correctly).
	var at ast.Node = o.Senders[0].Start
	if len(o.Sends) > 0 && o.Senders[0].Lit != nil {
		at = o.Sends[0]
	}
	name := o.Chan.Name()
	owner := o.Owner.Name()
	var msg string
	leaks := "so the goroutine leaks"
	sends := "the send on " + name + " blocks"
	switch {
	case o.Many && o.SenderLoop == nil && o.Count == 1:
		// One producer sending in a loop: its next send is stranded.
		sends = "the goroutine's sends on " + name + " in a loop block"
	case o.Many:
		leaks = "so the remaining goroutines leak"
		sends = "sends on " + name + " from goroutines started in a loop block"
	}
	switch {
	case o.Via != nil:
		msg = fmt.Sprintf("%s forever once %s stops receiving at `case %s`, %s", sends, owner, nodeString(pass.Fset, o.Via.Comm), leaks)
	case o.Many:
		msg = fmt.Sprintf("%s forever once %s stops receiving early, %s", sends, owner, leaks)
	default:
		msg = fmt.Sprintf("%s forever when %s returns before receiving from it, %s", sends, owner, leaks)
	}
	d := analysis.Diagnostic{Pos: at.Pos(), End: at.End(), Message: msg}
	d.Related = append(d.Related, analysis.RelatedInformation{Pos: o.ExitPos, Message: owner + " returns here with the send pending"})
	buf := "unbuffered"
	if o.Cap > 0 {
		buf = fmt.Sprintf("with a buffer of %d", o.Cap)
	}
	d.Related = append(d.Related, analysis.RelatedInformation{Pos: o.Make.Pos(), End: o.Make.End(), Message: name + " is made here " + buf})

	if fix, ok := bufferFix(pass, o); ok {
		d.SuggestedFixes = append(d.SuggestedFixes, fix)
	}
	if fix, ok := selectFix(pass, flow, o); ok {
		d.SuggestedFixes = append(d.SuggestedFixes, fix)
	}
	return d
}

// bufferFix sizes the channel's buffer to the number of senders.
func bufferFix(pass *analysis.Pass, o *goroutines.Orphan) (analysis.SuggestedFix, bool) {
	var size string
	if !o.Many {
		size = strconv.Itoa(o.Count)
	} else {
		var ok bool
		if size, ok = loopCount(pass, o); !ok {
			return analysis.SuggestedFix{}, false
		}
	}
	m := o.Make
	edit := analysis.TextEdit{Pos: m.Args[0].End(), End: m.Args[0].End(), NewText: []byte(", " + size)}
	if len(m.Args) == 2 {
		edit = analysis.TextEdit{Pos: m.Args[1].Pos(), End: m.Args[1].End(), NewText: []byte(size)}
	}
	return analysis.SuggestedFix{
		Message:   "Give the channel one buffer slot per sender",
		TextEdits: []analysis.TextEdit{edit},
	}, true
}

// loopCount returns Go source for the number of iterations of the loop
// starting the senders, when every sender sends once and the count is
// visible where the channel is made: len(items) for a range over items, n
// for a range over n or `for i := 0; i < n; i++`.
func loopCount(pass *analysis.Pass, o *goroutines.Orphan) (string, bool) {
	for _, g := range o.Senders {
		if g.Loop != o.SenderLoop {
			return "", false
		}
	}
	if len(o.Sends) != len(o.Senders) || o.SenderLoop == nil {
		return "", false // a goroutine that sends in a loop: unknown count
	}
	// Every send must be outside loops of its goroutine; the pass marks
	// Many for those too, so check the sends' enclosing loops here.
	for i, s := range o.Sends {
		if inLoop(o.Senders[i].Lit, s) {
			return "", false
		}
	}
	var expr ast.Expr
	wrapLen := false
	switch l := o.SenderLoop.(type) {
	case *ast.RangeStmt:
		t := pass.TypesInfo.TypeOf(l.X)
		if t == nil {
			return "", false
		}
		switch u := t.Underlying().(type) {
		case *types.Basic:
			wrapLen = u.Info()&types.IsString != 0
		case *types.Slice, *types.Array, *types.Map:
			wrapLen = true
		case *types.Pointer:
			wrapLen = true
		default:
			return "", false
		}
		expr = l.X
	case *ast.ForStmt:
		be, ok := l.Cond.(*ast.BinaryExpr)
		if !ok || be.Op != token.LSS {
			return "", false
		}
		init, ok := l.Init.(*ast.AssignStmt)
		if !ok || len(init.Rhs) != 1 {
			return "", false
		}
		if tv := pass.TypesInfo.Types[init.Rhs[0]]; tv.Value == nil || tv.Value.String() != "0" {
			return "", false
		}
		expr = be.Y
	default:
		return "", false
	}
	if !visibleAt(pass, expr, o.Make.Pos()) {
		return "", false
	}
	s := nodeString(pass.Fset, expr)
	if wrapLen {
		s = "len(" + s + ")"
	}
	return s, true
}

func inLoop(lit *ast.FuncLit, s *ast.SendStmt) bool {
	if lit == nil {
		return false
	}
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if n.Pos() <= s.Pos() && s.End() <= n.End() {
				found = true
			}
		}
		return !found
	})
	return found
}

// visibleAt reports whether e is made of identifiers, selectors and
// constants whose identifiers denote the same objects at pos.
func visibleAt(pass *analysis.Pass, e ast.Expr, pos token.Pos) bool {
	ok := true
	file := analysisutil.FileOf(pass, pos)
	if file == nil || pass.TypesInfo.Scopes[file] == nil {
		return false
	}
	scope := pass.TypesInfo.Scopes[file].Innermost(pos)
	if scope == nil {
		return false
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if !ok || n == nil {
			return false
		}
		switch n := n.(type) {
		case *ast.Ident:
			obj := pass.TypesInfo.Uses[n]
			if obj == nil {
				ok = false
				return false
			}
			if _, found := scope.LookupParent(n.Name, pos); found != obj {
				ok = false
			}
		case *ast.SelectorExpr:
			if sel, isSel := pass.TypesInfo.Selections[n]; isSel && sel.Kind() != types.FieldVal {
				ok = false // a method value or call
				return false
			}
			// Check only the base; the field name is not a scope lookup.
			ok = ok && visibleAt(pass, n.X, pos)
			return false
		case *ast.BasicLit, *ast.ParenExpr, *ast.BinaryExpr:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// selectFix wraps each blocking send in a select with the goroutine's
// context.
func selectFix(pass *analysis.Pass, flow *ctxflow.Result, o *goroutines.Orphan) (analysis.SuggestedFix, bool) {
	if len(o.Sends) == 0 {
		return analysis.SuggestedFix{}, false
	}
	var edits []analysis.TextEdit
	ctxExpr := ""
	for i, s := range o.Sends {
		g := o.Senders[min(i, len(o.Senders)-1)]
		if g.Lit == nil {
			return analysis.SuggestedFix{}, false
		}
		f := flow.FuncOf(g.Lit)
		if f == nil || !f.HasContext() {
			return analysis.SuggestedFix{}, false
		}
		ctx := f.Contexts[0].Expr
		if ctxExpr != "" && ctx != ctxExpr {
			return analysis.SuggestedFix{}, false
		}
		ctxExpr = ctx
		text := fmt.Sprintf("select {\ncase %s:\ncase <-%s.Done():\n}", nodeString(pass.Fset, s), ctx)
		edits = append(edits, analysis.TextEdit{Pos: s.Pos(), End: s.End(), NewText: []byte(text)})
	}
	return analysis.SuggestedFix{
		Message:   "Wrap the send in a select that gives up when the context is done",
		TextEdits: edits,
	}, true
}

func stallDiagnostic(pass *analysis.Pass, s *goroutines.Stall) analysis.Diagnostic {
	name := s.Chan.Name()
	how := "observes cancellation"
	switch via := s.Via.(type) {
	case *ast.CommClause:
		how = "takes `case " + nodeString(pass.Fset, via.Comm) + "`"
	case *ast.IfStmt:
		how = "checks `" + nodeString(pass.Fset, via.Cond) + "`"
	}
	d := analysis.Diagnostic{
		Pos:     s.Recv.Pos(),
		End:     s.Recv.End(),
		Message: fmt.Sprintf("this receive from %s blocks forever when the goroutine %s and returns without sending on or closing %s", name, how, name),
	}
	d.Related = append(d.Related, analysis.RelatedInformation{Pos: s.Via.Pos(), Message: "the goroutine gives up here"})
	return d
}

func nodeString(fset *token.FileSet, n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, n); err != nil {
		return ""
	}
	return buf.String()
}

// futureDiagnostic reports the send of a one-shot future: the caller that
// stops waiting strands it. The fix gives the channel a buffer of 1, so
// that the send completes whether or not anyone receives.
func futureDiagnostic(f *goroutines.Future) analysis.Diagnostic {
	owner := f.Owner.Name()
	d := analysis.Diagnostic{
		Pos: f.Send.Pos(), End: f.Send.End(),
		Message: fmt.Sprintf("the send on %s blocks forever once the caller of %s stops waiting for the unbuffered channel it returns (a timeout, a canceled context, the first of several results), so the goroutine leaks; give the channel a buffer of 1",
			f.Path, owner),
		Related: []analysis.RelatedInformation{
			{Pos: f.Make.Pos(), End: f.Make.End(), Message: "the channel is made unbuffered here"},
			{Pos: f.Return.Pos(), End: f.Return.End(), Message: owner + " hands it to its caller here"},
		},
	}
	n := 1 + len(f.Racers)
	if n > 1 {
		d.Message = fmt.Sprintf("the %d goroutines %s starts race to send once each on the unbuffered channel %s it returns: a caller that takes the first value (or stops waiting) leaves the others blocked on their sends forever, so they leak; give the channel a buffer of %d",
			n, owner, f.Path, n)
		for _, r := range f.Racers {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: r.Pos(), End: r.End(), Message: "another send races it here"})
		}
	}
	for _, g := range f.GivesUp {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: g.Select.Pos(), End: g.Select.Select + token.Pos(len("select")),
			Message: g.Caller + " stops waiting here when the select takes another case"})
	}
	var edit analysis.TextEdit
	size := fmt.Sprint(n)
	if len(f.Make.Args) == 1 {
		edit = analysis.TextEdit{Pos: f.Make.Args[0].End(), End: f.Make.Args[0].End(), NewText: []byte(", " + size)}
	} else {
		edit = analysis.TextEdit{Pos: f.Make.Args[1].Pos(), End: f.Make.Args[1].End(), NewText: []byte(size)}
	}
	d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Give the channel a buffer of " + size, TextEdits: []analysis.TextEdit{edit}}}
	return d
}

// streamDiagnostic reports the blind send of a stream: a channel its owner
// returns, fed in a loop by a goroutine that watches nothing while it
// waits for a receiver. The fix wraps the send in a select that returns
// from the goroutine once the owner's context is done.
func streamDiagnostic(pass *analysis.Pass, flow *ctxflow.Result, st *goroutines.Stream) analysis.Diagnostic {
	owner := st.Owner.Name()
	name := st.Chan.Name()
	d := analysis.Diagnostic{
		Pos: st.Send.Pos(), End: st.Send.End(),
		Message: fmt.Sprintf("this send on %s, which %s returns to its caller, waits for a receiver with no way out: a caller that stops receiving before the stream ends (on its own %s.Done(), or breaking out of its loop) leaves the goroutine blocked here forever; select on %s.Done() beside the send",
			name, owner, st.Ctx, st.Ctx),
		Related: []analysis.RelatedInformation{
			{Pos: st.Make.Pos(), End: st.Make.End(), Message: name + " is made here"},
			{Pos: st.Return.Pos(), End: st.Return.End(), Message: owner + " hands it to its caller here"},
		},
	}
	lit := st.Sender.Lit
	f := flow.FuncOf(lit)
	if f == nil || lit.Type.Results != nil && len(lit.Type.Results.List) > 0 {
		return d
	}
	ctx := ""
	for _, c := range f.Contexts {
		if c.Expr == st.Ctx {
			ctx = c.Expr
		}
	}
	if ctx == "" {
		return d
	}
	text := fmt.Sprintf("select {\ncase %s:\ncase <-%s.Done():\nreturn\n}", nodeString(pass.Fset, st.Send), ctx)
	d.SuggestedFixes = []analysis.SuggestedFix{{
		Message:   "Stop sending once " + ctx + " is done",
		TextEdits: []analysis.TextEdit{{Pos: st.Send.Pos(), End: st.Send.End(), NewText: []byte(text)}},
	}}
	return d
}

// registeredDiagnostic reports an unbuffered reply channel registered in a
// map and given up on without being taken out. The fix gives it a buffer
// of 1, so that the one late reply lands in the buffer.
func registeredDiagnostic(pass *analysis.Pass, r *goroutines.Registered) analysis.Diagnostic {
	owner := r.Owner.Name()
	name := r.Chan.Name()
	arm := "this arm"
	if r.GiveUp.Comm == nil {
		arm = "the default arm"
	} else if src := analysisutil.Source(pass, r.GiveUp.Comm); src != "" {
		arm = "case " + src
	}
	d := analysis.Diagnostic{
		Pos: r.Make.Pos(), End: r.Make.End(),
		Message: fmt.Sprintf("%s is unbuffered and registered in %s, and %s stops waiting on it at %s and returns without taking it out: whoever later finds it there and delivers the reply blocks on the send forever (often the connection's reader, and every call behind it); give %s a buffer of 1, or remove it from %s before returning",
			name, r.Field.Name(), owner, arm, name, r.Field.Name()),
		Related: []analysis.RelatedInformation{
			{Pos: r.Store.Pos(), End: r.Store.End(), Message: name + " is registered here"},
			{Pos: r.GiveUp.Pos(), End: r.GiveUp.Colon + 1, Message: owner + " gives up here"},
			{Pos: r.Exit.Pos(r.Owner.Body), Message: "and returns here with " + name + " still registered"},
		},
	}
	var edit analysis.TextEdit
	if len(r.Make.Args) == 1 {
		edit = analysis.TextEdit{Pos: r.Make.Args[0].End(), End: r.Make.Args[0].End(), NewText: []byte(", 1")}
	} else {
		edit = analysis.TextEdit{Pos: r.Make.Args[1].Pos(), End: r.Make.Args[1].End(), NewText: []byte("1")}
	}
	d.SuggestedFixes = []analysis.SuggestedFix{{Message: "Give the channel a buffer of 1", TextEdits: []analysis.TextEdit{edit}}}
	return d
}
