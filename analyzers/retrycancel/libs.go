package retrycancel

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

// Retry and poll helpers that take no context, and what to use instead.
const (
	backoffPath = "github.com/cenkalti/backoff"
	retryGoPath = "github.com/avast/retry-go"
	k8sWaitPath = "k8s.io/apimachinery/pkg/util/wait"
)

// k8sWait maps the context-less functions of k8s.io/apimachinery/pkg/util/wait
// to their replacements; stop is the index of a stop-channel parameter
// (-1 for none): a call whose stop channel is a context's Done() is fine.
var k8sWait = map[string]struct {
	instead string
	stop    int
}{
	"Poll":                  {"PollUntilContextTimeout", -1},
	"PollImmediate":         {"PollUntilContextTimeout", -1},
	"PollInfinite":          {"PollUntilContextCancel", -1},
	"PollImmediateInfinite": {"PollUntilContextCancel", -1},
	"ExponentialBackoff":    {"ExponentialBackoffWithContext", -1},
	"Forever":               {"UntilWithContext", -1},
	"Until":                 {"UntilWithContext", 2},
	"NonSlidingUntil":       {"NonSlidingUntilWithContext", 2},
	"JitterUntil":           {"JitterUntilWithContext", 4},
	"BackoffUntil":          {"BackoffUntilWithContext", 3},
	"PollUntil":             {"PollUntilContextCancel", 2},
	"PollImmediateUntil":    {"PollUntilContextCancel", 2},
}

// modulePath strips a major version suffix: github.com/x/y/v4 -> github.com/x/y.
func modulePath(path string) string {
	if i := strings.LastIndex(path, "/v"); i >= 0 {
		if rest := path[i+2:]; rest != "" && strings.Trim(rest, "0123456789") == "" {
			return path[:i]
		}
	}
	return path
}

func (st *state) checkLibraryCall(cur inspector.Cursor, call *ast.CallExpr) {
	fn := analysisutil.Callee(st.info, call)
	if fn == nil || fn.Pkg() == nil {
		return
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() != nil {
		return
	}
	path := modulePath(fn.Pkg().Path())
	if path != backoffPath && path != retryGoPath && path != k8sWaitPath {
		return
	}
	for i := range sig.Params().Len() {
		if analysisutil.IsContext(sig.Params().At(i).Type()) {
			return // backoff/v5 and friends take the context
		}
	}
	f := st.res.Enclosing(cur)
	if f == nil || !f.HasContext() {
		return
	}
	c := f.Contexts[0]
	pkgName := ""
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			if _, ok := st.info.Uses[id].(*types.PkgName); ok {
				pkgName = id.Name
			}
		}
	}
	d := analysis.Diagnostic{Pos: call.Pos(), End: call.End()}
	name := fn.Pkg().Name() + "." + fn.Name()
	switch path {
	case backoffPath:
		switch fn.Name() {
		case "Retry", "RetryNotify", "RetryNotifyWithTimer", "RetryWithData", "RetryNotifyWithData", "RetryNotifyWithTimerAndData":
		default:
			return
		}
		if len(call.Args) < 2 {
			return
		}
		b := call.Args[1]
		if iface := fn.Pkg().Scope().Lookup("BackOffContext"); iface != nil {
			if it, ok := iface.Type().Underlying().(*types.Interface); ok && types.Implements(st.info.TypeOf(b), it) {
				return
			}
		}
		d.Message = fmt.Sprintf("%s with a policy not bound to %s keeps retrying after %s is canceled; wrap the policy with backoff.WithContext", name, c.Expr, c.Expr)
		if pkgName != "" && st.resolves(c.Obj, call.Pos()) {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message: "Bind the backoff policy to the context",
				TextEdits: []analysis.TextEdit{
					{Pos: b.Pos(), End: b.Pos(), NewText: []byte(pkgName + ".WithContext(")},
					{Pos: b.End(), End: b.End(), NewText: []byte(", " + c.Expr + ")")},
				},
			}}
		}
	case retryGoPath:
		if fn.Name() != "Do" && fn.Name() != "DoWithData" {
			return
		}
		if call.Ellipsis.IsValid() {
			return // options passed as a slice: cannot tell
		}
		for _, a := range call.Args {
			if ac, ok := ast.Unparen(a).(*ast.CallExpr); ok {
				if afn := analysisutil.Callee(st.info, ac); afn != nil && afn.Pkg() == fn.Pkg() && afn.Name() == "Context" {
					return
				}
			}
		}
		d.Message = fmt.Sprintf("%s without retry.Context(%s) keeps retrying after %s is canceled", name, c.Expr, c.Expr)
		if pkgName != "" && st.resolves(c.Obj, call.Pos()) {
			d.SuggestedFixes = []analysis.SuggestedFix{{
				Message:   "Pass the context with retry.Context",
				TextEdits: []analysis.TextEdit{{Pos: call.Rparen, End: call.Rparen, NewText: []byte(", " + pkgName + ".Context(" + c.Expr + ")")}},
			}}
		}
	case k8sWaitPath:
		w, ok := k8sWait[fn.Name()]
		if !ok {
			return
		}
		if w.stop >= 0 && w.stop < len(call.Args) && !st.neverStops(call.Args[w.stop]) {
			return
		}
		d.Message = fmt.Sprintf("%s cannot be canceled and keeps polling after %s is canceled; use wait.%s", name, c.Expr, w.instead)
	}
	st.rep.Report(d)
}

// neverStops reports whether a stop channel argument is never closed:
// wait.NeverStop, nil, or a fresh make(chan ...).
func (st *state) neverStops(e ast.Expr) bool {
	e = ast.Unparen(e)
	if tv, ok := st.info.Types[e]; ok && tv.IsNil() {
		return true
	}
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "NeverStop" && analysisutil.ObjectOfIdent(st.info, e.Sel) != nil &&
			analysisutil.ObjectOfIdent(st.info, e.Sel).Pkg() != nil &&
			modulePath(analysisutil.ObjectOfIdent(st.info, e.Sel).Pkg().Path()) == k8sWaitPath
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			_, builtin := st.info.Uses[id].(*types.Builtin)
			return builtin && id.Name == "make"
		}
	}
	return false
}

// resolves reports whether obj's name refers to obj at pos (no local
// declaration shadows it).
func (st *state) resolves(obj types.Object, pos token.Pos) bool {
	file := analysisutil.FileOf(st.pass, pos)
	if file == nil || obj == nil {
		return false
	}
	scope := st.info.Scopes[file]
	if scope == nil {
		return false
	}
	if inner := scope.Innermost(pos); inner != nil {
		scope = inner
	}
	_, found := scope.LookupParent(obj.Name(), pos)
	return found == obj
}

// checkCallbackRetry reports a call of a context-less retry helper (ctxflow's
// RetriesCallback fact: it calls its callback in a loop and waits between
// the calls) given a function literal that runs under the caller's context:
// once that context ends, every attempt fails at once, and the helper goes
// on calling and sleeping until its attempts run out.
func (st *state) checkCallbackRetry(cur inspector.Cursor, call *ast.CallExpr, fn *types.Func) bool {
	i := st.res.RetriesCallback(fn)
	if i < 0 || i >= len(call.Args) {
		return false
	}
	if fn.Pkg() != nil {
		switch modulePath(fn.Pkg().Path()) {
		case backoffPath, retryGoPath, k8sWaitPath:
			// Known libraries: checkLibraryCall knows how their policies
			// take a context (backoff.WithContext, retry.Context).
			return false
		}
	}
	lit, ok := ast.Unparen(call.Args[i]).(*ast.FuncLit)
	if !ok {
		return false
	}
	f := st.res.Enclosing(cur)
	if f == nil {
		return false
	}
	for _, c := range f.Contexts {
		if c.Kind != ctxflow.ParamContext && c.Kind != ctxflow.RequestContext {
			continue
		}
		if !analysisutil.ReferencesObject(st.info, lit.Body, c.Obj) {
			continue
		}
		name := types.ExprString(call.Fun)
		st.rep.Report(analysis.Diagnostic{
			Pos: call.Pos(), End: call.Lparen,
			Message: fmt.Sprintf("%s retries its callback and waits between attempts, but takes no context: once %s is canceled each attempt fails at once and %s keeps calling and sleeping until its attempts run out; use a retry that stops when %s is done",
				name, c.Expr, name, c.Expr),
		})
		return true
	}
	return false
}
