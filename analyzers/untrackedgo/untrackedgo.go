package untrackedgo

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	"github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct {
	// NoLoops turns off the report of goroutines started per element of a
	// collection loop that touch no other owner state.
	NoLoops bool `json:"no-loops"`
}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	c := &checker{cfg: cfg}
	return &analysis.Analyzer{
		Name:     "untrackedgo",
		Doc:      analysisutil.MustExtractDoc(doc, "untrackedgo"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/untrackedgo.md",
		Requires: []*analysis.Analyzer{goroutines.Analyzer, flow.Analyzer, directives.Analyzer},
		Run:      analysisutil.Finishing(c.run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

type checker struct{ cfg Config }

func (c *checker) run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[goroutines.Analyzer].(*goroutines.Lazy).Get()
	if len(res.Goroutines) == 0 && len(res.GroupStarts) == 0 && len(res.Unwaited) == 0 && len(res.ClosedUnder) == 0 {
		return analysisutil.NothingToReport(pass), nil
	}
	rep := analysisutil.NewReporter(pass)
	for _, s := range res.GroupStarts {
		rep.Report(groupUnwaited(pass, s))
	}
	for _, u := range res.Unwaited {
		rep.Report(unwaited(pass, u))
	}
	closed := map[*ast.CallExpr]bool{}
	for _, cu := range res.ClosedUnder {
		g := cu.Goroutine
		if g.Untracked != nil || g.Endless != nil || g.Stranded != nil || g.UnjoinedPos.IsValid() || g.AddInside != nil || g.SkipsDone != nil {
			continue // reported as that: one bug, one finding
		}
		if closed[cu.Close] {
			continue // one release, one finding, whatever number of goroutines use it
		}
		closed[cu.Close] = true
		rep.Report(closedUnder(pass, cu))
	}
	for _, g := range res.Goroutines {
		if g.Orphaned {
			continue // orphansend's finding
		}
		if g.AddInside != nil {
			rep.Report(addInside(pass, g))
		}
		if g.SkipsDone != nil {
			rep.Report(skipsDone(pass, g))
		}
		if g.Untracked != nil {
			rep.Report(untrackedByType(g))
			continue
		}
		if g.Endless != nil {
			rep.Report(endless(g))
			continue
		}
		if s := g.Stranded; s != nil {
			rep.Report(analysis.Diagnostic{
				Pos: g.Start.Pos(), End: startEnd(g),
				Message: fmt.Sprintf("goroutine ranges over %s, which %s can return without closing: nothing else can close it, so on that path the goroutine blocks in the range forever",
					s.Chan.Name(), g.Owner.Name()),
				Related: []analysis.RelatedInformation{
					{Pos: s.Exit, Message: g.Owner.Name() + " returns here with " + s.Chan.Name() + " open"},
					{Pos: s.Range.Pos(), Message: "the goroutine waits for " + s.Chan.Name() + " to be closed here"},
				},
			})
			continue
		}
		if d, ok := unheardSignal(pass, g); ok {
			rep.Report(d)
			continue
		}
		if g.UnjoinedPos.IsValid() {
			if len(g.Uses) == 0 && c.cfg.NoLoops {
				continue
			}
			rep.Report(unjoined(pass, g))
		}
	}
	rep.Finish()
	return nil, nil
}

// unwaited reports a shutdown method that signals the type's goroutines
// to stop and returns without waiting for them, which another method of
// the type does.
func unwaited(pass *analysis.Pass, u *goroutines.Unwaited) analysis.Diagnostic {
	name := u.Method.Name.Name
	wait := nodeText(pass, u.WaitAt)
	how := "waiting for them (" + wait + ")"
	if u.HandleKind == "done" {
		how = "waiting for them to close " + u.Handle.Name() + " (" + wait + ")"
	}
	return analysis.Diagnostic{
		Pos: u.Signal.Pos(), End: u.Signal.End(),
		Message: fmt.Sprintf("%s tells the type's goroutines to stop (%s) but can return without %s, as %s does: they may still be running after %s has returned, against whatever its caller releases next",
			name, nodeText(pass, u.Signal), how, u.Waiter.Name(), name),
		Related: []analysis.RelatedInformation{
			{Pos: u.Exit, Message: name + " returns here without waiting"},
			{Pos: u.WaitAt.Pos(), End: u.WaitAt.End(), Message: u.Waiter.Name() + " waits for them here"},
		},
	}
}

// closedUnder reports a release of what a goroutine uses right after
// its context is canceled, with no wait between.
func closedUnder(pass *analysis.Pass, cu *goroutines.ClosedUnder) analysis.Diagnostic {
	closeText := nodeText(pass, cu.Close)
	return analysis.Diagnostic{
		Pos: cu.Close.Pos(), End: cu.Close.End(),
		Message: fmt.Sprintf("%s runs right after %s without waiting for the goroutine started at line %d, which uses %s: canceling only asks it to stop, so it can still be inside a call on %s when that is released; wait for it first",
			closeText, nodeText(pass, cu.Cancel), pass.Fset.Position(cu.Goroutine.Start.Pos()).Line, cu.Field.Name(), cu.Field.Name()),
		Related: []analysis.RelatedInformation{
			{Pos: cu.Goroutine.Start.Pos(), End: startEnd(cu.Goroutine), Message: "the goroutine is started here"},
			{Pos: cu.Use, Message: "the goroutine uses " + cu.Field.Name() + " here"},
		},
	}
}

// dropsError reports whether g is `go f(...)` of a function with an error
// result, which the go statement discards.
func dropsError(info *types.Info, g *goroutines.Goroutine) bool {
	gs, ok := g.Start.(*ast.GoStmt)
	if !ok {
		return false
	}
	sig, ok := info.TypeOf(gs.Call.Fun).Underlying().(*types.Signature)
	return ok && analysisutil.ErrorResult(sig) >= 0
}

// untrackedByType reports a goroutine of a method that escapes the
// WaitGroup field its type's other goroutines are counted in.
func untrackedByType(g *goroutines.Goroutine) analysis.Diagnostic {
	u := g.Untracked
	tail := "the Wait returns while this one still runs"
	if u.Work != nil {
		tail = fmt.Sprintf("it runs %s, which the goroutines counted there run too, and the Wait can return while this one is still in it", u.Work.Name())
	}
	return analysis.Diagnostic{
		Pos: g.Start.Pos(), End: startEnd(g),
		Message: fmt.Sprintf("goroutine started by %s is not counted in %s, which the type's other goroutines are counted in and its shutdown waits on: %s",
			g.Owner.Name(), u.Field.Name(), tail),
		Related: []analysis.RelatedInformation{
			{Pos: u.Wait, Message: "the shutdown waits on " + u.Field.Name() + " here"},
			{Pos: u.Add, Message: "another goroutine is counted in " + u.Field.Name() + " here"},
		},
	}
}

// endless reports a goroutine that never ends, started by a method or a
// constructor of a type whose shutdown method therefore cannot end it.
func endless(g *goroutines.Goroutine) analysis.Diagnostic {
	e := g.Endless
	why := "no path through it returns"
	if e.Ticker != nil {
		why = "its loop ranges over " + types.ExprString(e.Ticker.X) + ", which is never closed (Stop does not close a ticker's channel)"
	}
	if e.Shutdown == nil {
		return analysis.Diagnostic{
			Pos: g.Start.Pos(), End: startEnd(g),
			Message: fmt.Sprintf("goroutine started by %s never ends: %s, so canceling %s, the context %s was given, cannot stop it and it keeps running for the life of the process",
				g.Owner.Name(), why, e.Context.Name(), g.Owner.Name()),
		}
	}
	typ := types.TypeString(deref(e.Shutdown.Type().(*types.Signature).Recv().Type()), func(*types.Package) string { return "" })
	d := analysis.Diagnostic{
		Pos: g.Start.Pos(), End: startEnd(g),
		Message: fmt.Sprintf("goroutine started by %s never ends: %s, so %s.%s cannot stop it and it keeps running after the %s is shut down",
			g.Owner.Name(), why, typ, e.Shutdown.Name(), typ),
	}
	if e.Shutdown.Pos().IsValid() {
		d.Related = []analysis.RelatedInformation{{Pos: e.Shutdown.Pos(), Message: typ + "." + e.Shutdown.Name() + " does not reach the goroutine"}}
	}
	return d
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func unjoined(pass *analysis.Pass, g *goroutines.Goroutine) analysis.Diagnostic {
	owner := g.Owner.Name()
	var msg string
	var use *goroutines.Use
	if len(g.Uses) > 0 {
		use = &g.Uses[0]
	}
	switch {
	case use == nil:
		lost := "nobody learns whether they finished or failed"
		if dropsError(pass.TypesInfo, g) {
			lost = "the errors they return are lost"
		}
		msg = fmt.Sprintf("goroutines started for each element of the loop are never waited for: %s returns while they still run, and %s", owner, lost)
	case use.Kind == goroutines.UseResponse:
		msg = fmt.Sprintf("goroutine writes to %s after %s may have returned: the response is finished when the handler returns, so the write is lost or panics", use.Obj.Name(), owner)
	case use.Kind == goroutines.UseRequest:
		msg = fmt.Sprintf("goroutine uses the request %s after %s may have returned: net/http cancels its context when the handler returns, cutting the work off", use.Obj.Name(), owner)
	case use.Kind == goroutines.UseWrite:
		msg = fmt.Sprintf("goroutine writes %s, a variable of %s, which can return without waiting for it: the result is lost and the write races", use.Obj.Name(), owner)
	case use.Kind == goroutines.UseWaitGroup:
		msg = fmt.Sprintf("goroutine counted in %s outlives %s, which can return without %s.Wait: the work keeps running after the caller has moved on", use.Obj.Name(), owner, use.Obj.Name())
	case g.Group != nil:
		top := g.Owner
		for top.Parent != nil && top.Obj == nil {
			top = top.Parent
		}
		grp := types.ExprString(g.Group)
		msg = fmt.Sprintf("goroutine started in a function that %s runs is not counted in %s: %s.Wait in %s returns while it still runs under %s, so the work outlives %s; start it with %s.Go", grp, grp, grp, top.Name(), use.Obj.Name(), top.Name(), grp)
	default:
		msg = fmt.Sprintf("goroutine uses the context %s of %s, which can return without waiting for it: the work outlives its caller and is cut off when %s is canceled", use.Obj.Name(), owner, use.Obj.Name())
	}
	d := analysis.Diagnostic{Pos: g.Start.Pos(), End: startEnd(g), Message: msg}
	d.Related = append(d.Related, analysis.RelatedInformation{Pos: g.UnjoinedPos, Message: owner + " returns here without waiting for the goroutine"})
	if use != nil && use.Kind != goroutines.UseWaitGroup {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: use.Pos, Message: "the goroutine uses " + use.Obj.Name() + " here"})
	}
	if fix, ok := scopeFix(pass, g); ok {
		d.SuggestedFixes = append(d.SuggestedFixes, fix)
	}
	return d
}

// startEnd ends the diagnostic at the go keyword's line: the call, not the
// whole literal.
func startEnd(g *goroutines.Goroutine) token.Pos {
	if inline(g) {
		return g.Lit.Body.Lbrace + 1
	}
	return g.Start.End()
}

// inline reports whether g's body is a literal written in its go statement
// (not one bound to a variable that `go load()` runs).
func inline(g *goroutines.Goroutine) bool {
	return g.Lit != nil && g.Start.Pos() <= g.Lit.Pos() && g.Lit.End() <= g.Start.End()
}

func addInside(pass *analysis.Pass, g *goroutines.Goroutine) analysis.Diagnostic {
	call := g.AddInside
	wg := nodeText(pass, call.Fun.(*ast.SelectorExpr).X)
	add, wait := wg+".Add", wg+".Wait"
	if !analysisutil.IsMethod(analysisutil.Callee(pass.TypesInfo, call), "sync", "WaitGroup", "Add") {
		// A helper of the package that calls Add on a WaitGroup field.
		add, wait = nodeText(pass, call)+", which calls WaitGroup.Add,", "the group's Wait"
	}
	d := analysis.Diagnostic{
		Pos:     call.Pos(),
		End:     call.End(),
		Message: fmt.Sprintf("%s inside the goroutine it counts races with %s: Wait may return before the goroutine starts", add, wait),
	}
	if !g.AddCountsSelf {
		d.Message = fmt.Sprintf("%s as the first statement of a new goroutine races with %s: Wait may return before the goroutine runs it", add, wait)
	}
	gs, ok := g.Start.(*ast.GoStmt)
	if !ok {
		return d
	}
	// The Add must be a statement of the literal's body and use nothing
	// declared in the literal.
	var stmt ast.Stmt
	for _, s := range g.Lit.Body.List {
		if es, ok := s.(*ast.ExprStmt); ok && es.X == call {
			stmt = s
		}
	}
	if stmt == nil || usesInside(pass, call, g.Lit) {
		return d
	}
	tf := pass.Fset.File(stmt.Pos())
	line := tf.Line(stmt.Pos())
	if tf.Line(stmt.End()) != line || line >= tf.LineCount() {
		return d
	}
	// The whole line, with any trailing comment.
	del := analysis.TextEdit{Pos: tf.LineStart(line), End: tf.LineStart(line + 1)}
	ins := analysis.TextEdit{Pos: gs.Pos(), End: gs.Pos(), NewText: []byte(nodeText(pass, call) + "\n")}
	d.SuggestedFixes = []analysis.SuggestedFix{{
		Message:   "Move the Add before the go statement",
		TextEdits: []analysis.TextEdit{ins, del},
	}}
	return d
}

func usesInside(pass *analysis.Pass, n ast.Node, lit *ast.FuncLit) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			if obj := pass.TypesInfo.Uses[id]; obj != nil && lit.Pos() <= obj.Pos() && obj.Pos() < lit.End() {
				found = true
			}
		}
		return !found
	})
	return found
}

// skipsDone reports a goroutine that ends, on some path, without calling
// Done on the WaitGroup that counts it. The fix defers the Done at the top
// of the body when the only Done is the body's last statement: on the path
// that reached it nothing changes, and the other paths now call it too.
func skipsDone(pass *analysis.Pass, g *goroutines.Goroutine) analysis.Diagnostic {
	s := g.SkipsDone
	wg := nodeText(pass, s.WaitGroup)
	d := analysis.Diagnostic{
		Pos: g.Start.Pos(), End: startEnd(g),
		Message: fmt.Sprintf("goroutine can end without calling %s.Done: on that path %s never reaches zero and %s.Wait blocks forever", wg, wg, wg),
		Related: []analysis.RelatedInformation{
			{Pos: s.Exit, Message: "the goroutine ends here without " + wg + ".Done"},
			{Pos: s.Done.Pos(), End: s.Done.End(), Message: wg + ".Done is called only on other paths"},
		},
	}
	if g.Lit == nil {
		return d // the Done is in the called function: no fix here
	}
	body := g.Lit.Body.List
	last, ok := body[len(body)-1].(*ast.ExprStmt)
	if !ok || last.X != s.Done || len(body) < 2 {
		return d
	}
	tf := pass.Fset.File(last.Pos())
	line := tf.Line(last.Pos())
	if tf.Line(last.End()) != line || line >= tf.LineCount() || tf.Line(body[len(body)-2].End()) == line || tf.Line(g.Lit.Body.Rbrace) == line {
		return d
	}
	indent := analysisutil.IndentAt(pass, body[0].Pos())
	d.SuggestedFixes = []analysis.SuggestedFix{{
		Message: "Defer " + wg + ".Done at the start of the goroutine",
		TextEdits: []analysis.TextEdit{
			{Pos: body[0].Pos(), End: body[0].Pos(), NewText: []byte("defer " + nodeText(pass, s.Done) + "\n" + indent)},
			{Pos: tf.LineStart(line), End: tf.LineStart(line + 1)},
		},
	}}
	return d
}

// groupUnwaited reports a goroutine started on a group that its owner can
// return without waiting for.
func groupUnwaited(pass *analysis.Pass, s *goroutines.GroupStart) analysis.Diagnostic {
	g := nodeText(pass, s.GroupExpr)
	owner := s.Owner.Name()
	where := "the end of " + owner
	if s.Return != nil {
		where = "a return"
	}
	lost := ""
	if sig, ok := pass.TypesInfo.TypeOf(s.Call.Args[0]).Underlying().(*types.Signature); ok && sig.Results().Len() > 0 {
		lost = " and their errors are lost"
	}
	return analysis.Diagnostic{
		Pos: s.Call.Pos(), End: s.Call.Fun.End(),
		Message: fmt.Sprintf("goroutine started by %s.%s is not waited for on every path: %s reaches %s without %s.Wait, so the goroutines keep running after it has returned%s",
			g, s.Call.Fun.(*ast.SelectorExpr).Sel.Name, owner, where, g, lost),
		Related: []analysis.RelatedInformation{{Pos: s.Exit, Message: owner + " returns here without waiting for " + g}},
	}
}
