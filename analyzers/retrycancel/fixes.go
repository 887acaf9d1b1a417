package retrycancel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// waitPath is the runtime package whose Sleep honours a context.
const waitPath = "github.com/cancelcheck/cancelcheck/rt/wait"

// fixEnv holds what every fix in one function needs.
type fixEnv struct {
	file   *ast.File
	src    []byte
	ctx    string // the context's spelling
	ctxPkg string // the name of package context in the file
	cause  string // the expression for the context's cause
	edits  []analysis.TextEdit
}

// env prepares a fix at pos for the loop, or returns nil when the context
// cannot be spelled there.
func (st *state) env(l *loop, pos token.Pos, ctxExpr string, ctxObj types.Object) *fixEnv {
	file := analysisutil.FileOf(st.pass, pos)
	if file == nil || !st.resolves(ctxObj, pos) {
		return nil // no file, or the context's name is shadowed
	}
	e := &fixEnv{file: file, ctx: ctxExpr}
	e.src = analysisutil.ReadSource(st.pass, pos)
	e.ctxPkg, e.edits = analysisutil.AddImport(st.info, file, pos, "context")
	e.cause = fmt.Sprintf("%s.Cause(%s)", e.ctxPkg, ctxExpr)
	if v := st.info.FileVersions[file]; v != "" && version.Compare(v, "go1.20") < 0 {
		// context.Cause is new in Go 1.20.
		e.cause, e.edits = ctxExpr+".Err()", nil
	}
	return e
}

// ret returns the return statement leaving l's function with errExpr.
func (st *state) ret(l *loop, e *fixEnv, errExpr string) (string, bool) {
	if l.f.Sig.Results().Len() == 0 {
		return "return", true
	}
	return analysisutil.ReturnWith(e.file, st.pass.Pkg, l.f.Sig, errExpr)
}

func (e *fixEnv) indent(st *state, pos token.Pos) string {
	if e.src == nil {
		return ""
	}
	return analysisutil.Indent(st.pass.Fset, e.src, pos)
}

// checkFix adds a context check at the top of the loop body.
func (st *state) checkFix(l *loop, ctxExpr string, ctxObj types.Object) []analysis.SuggestedFix {
	e := st.env(l, l.body.Lbrace, ctxExpr, ctxObj)
	if e == nil {
		return nil
	}
	ret, ok := st.ret(l, e, e.cause)
	if !ok {
		return nil
	}
	in := e.indent(st, l.stmt.Pos()) + "\t"
	check := fmt.Sprintf("if %s.Err() != nil {\n%s\t%s\n%s}", e.ctx, in, ret, in)
	// Insert before the first statement, so a comment trailing the loop
	// header stays where it is.
	edit := analysis.TextEdit{Pos: l.body.Lbrace + 1, End: l.body.Lbrace + 1, NewText: []byte("\n" + in + check)}
	if len(l.body.List) > 0 {
		first := l.body.List[0].Pos()
		edit = analysis.TextEdit{Pos: first, End: first, NewText: []byte(check + "\n" + in)}
	}
	return []analysis.SuggestedFix{{
		Message:   "Check the context at the top of the loop",
		TextEdits: append(e.edits, edit),
	}}
}

// sleepFixes replaces an uninterruptible sleep by a select on the context
// and a timer, or by wait.Sleep from the runtime.
func (st *state) sleepFixes(l *loop, s sleep, ctxExpr string, ctxObj types.Object) []analysis.SuggestedFix {
	if s.dur == nil {
		return st.waitFix(l, s, ctxExpr, ctxObj)
	}
	e := st.env(l, s.stmt.Pos(), ctxExpr, ctxObj)
	if e == nil {
		return nil
	}
	timePkg := analysisutil.ImportName(e.file, "time")
	if timePkg == "" {
		return nil
	}
	in := e.indent(st, s.stmt.Pos())
	dur := types.ExprString(s.dur)
	if e.src != nil {
		tf := st.pass.Fset.File(s.dur.Pos())
		dur = string(e.src[tf.Offset(s.dur.Pos()):tf.Offset(s.dur.End())])
	}
	var fixes []analysis.SuggestedFix

	if ret, ok := st.ret(l, e, e.cause); ok {
		text := strings.Join([]string{
			"select {",
			in + "case <-" + e.ctx + ".Done():",
			in + "\t" + ret,
			in + "case <-" + timePkg + ".After(" + dur + "):",
			in + "}",
		}, "\n")
		if v := st.info.FileVersions[e.file]; v != "" && version.Compare(v, "go1.23") < 0 {
			// Before Go 1.23 a time.After timer stays in the runtime's
			// heap until it fires, each round (leaseleak reports that):
			// a timer stopped when the context wins.
			if t := analysisutil.FreeName(st.info, e.file, s.stmt.Pos(), "timer", true); t != "" {
				text = strings.Join([]string{
					t + " := " + timePkg + ".NewTimer(" + dur + ")",
					in + "select {",
					in + "case <-" + e.ctx + ".Done():",
					in + "\t" + t + ".Stop()",
					in + "\t" + ret,
					in + "case <-" + t + ".C:",
					in + "}",
				}, "\n")
			}
		}
		fixes = append(fixes, analysis.SuggestedFix{
			Message:   "Wait in a select that returns when the context ends",
			TextEdits: append(append([]analysis.TextEdit(nil), e.edits...), analysis.TextEdit{Pos: s.stmt.Pos(), End: s.stmt.End(), NewText: []byte(text)}),
		})
	}

	if !analysisutil.ReachesModule(st.pass.Pkg, ctxflow.RuntimeModule) {
		return fixes // the build does not resolve the runtime module
	}
	waitName, waitEdits := analysisutil.AddImport(st.info, e.file, s.stmt.Pos(), waitPath)
	var text string
	if l.f.Sig.Results().Len() == 0 {
		text = fmt.Sprintf("if %s.Sleep(%s, %s) != nil {\n%s\treturn\n%s}", waitName, e.ctx, dur, in, in)
	} else if ret, ok := st.ret(l, e, "err"); ok {
		text = fmt.Sprintf("if err := %s.Sleep(%s, %s); err != nil {\n%s\t%s\n%s}", waitName, e.ctx, dur, in, ret, in)
	}
	if text != "" {
		// wait.Sleep needs no context import of its own.
		fixes = append(fixes, analysis.SuggestedFix{
			Message:   "Wait with wait.Sleep from the cancelcheck runtime",
			TextEdits: append(waitEdits, analysis.TextEdit{Pos: s.stmt.Pos(), End: s.stmt.End(), NewText: []byte(text)}),
		})
	}
	return fixes
}

// waitFix fixes a wait that is not a plain sleep so that the fix resolves
// every problem the check sees in the loop: a select over timers gets a
// case for the context, a receive from a ticker becomes a select with one,
// and a range over a ticker's channel (reported only when the loop never
// checks its context) gets a check at the top. A helper that sleeps gets no
// fix: a check around it still sleeps out its backoff, and the helper
// itself must take the context.
func (st *state) waitFix(l *loop, s sleep, ctxExpr string, ctxObj types.Object) []analysis.SuggestedFix {
	if r, ok := l.stmt.(*ast.RangeStmt); ok {
		if es, ok := s.stmt.(*ast.ExprStmt); ok && es.X == r.X {
			return st.checkFix(l, ctxExpr, ctxObj)
		}
	}
	e := st.env(l, s.stmt.Pos(), ctxExpr, ctxObj)
	if e == nil {
		return nil
	}
	ret, ok := st.ret(l, e, e.cause)
	if !ok {
		return nil
	}
	in := e.indent(st, s.stmt.Pos())
	switch n := s.stmt.(type) {
	case *ast.SelectStmt:
		if len(n.Body.List) == 0 {
			return nil
		}
		first := n.Body.List[0].Pos()
		text := "case <-" + e.ctx + ".Done():\n" + in + "\t" + ret + "\n" + in
		return []analysis.SuggestedFix{{
			Message:   "Add a case that returns when the context ends",
			TextEdits: append(e.edits, analysis.TextEdit{Pos: first, End: first, NewText: []byte(text)}),
		}}
	case *ast.ExprStmt:
		u, ok := ast.Unparen(n.X).(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW {
			return nil // a sleeping helper
		}
		ch := types.ExprString(u.X)
		if e.src != nil {
			tf := st.pass.Fset.File(u.X.Pos())
			ch = string(e.src[tf.Offset(u.X.Pos()):tf.Offset(u.X.End())])
		}
		text := strings.Join([]string{
			"select {",
			in + "case <-" + e.ctx + ".Done():",
			in + "\t" + ret,
			in + "case <-" + ch + ":",
			in + "}",
		}, "\n")
		return []analysis.SuggestedFix{{
			Message:   "Wait in a select that returns when the context ends",
			TextEdits: append(e.edits, analysis.TextEdit{Pos: n.Pos(), End: n.End(), NewText: []byte(text)}),
		}}
	}
	return nil
}
