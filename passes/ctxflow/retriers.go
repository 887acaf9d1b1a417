package ctxflow

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// RetriesCallback is an object fact on a *types.Func that takes no context
// (none in reach either) and retries a callback parameter: a loop of its
// body calls the parameter and waits between the calls (time.Sleep,
// <-time.After, a wait on a timer, or a helper with the Sleeps fact). Like
// the retry libraries that predate contexts (stub.RetryDo(attempts, delay,
// fn)), it cannot stop early: given a callback that runs under a caller's
// context, it goes on calling it, each call failing at once, and sleeping
// after the context has ended.
type RetriesCallback struct {
	Param int // the index of the callback parameter
}

// AFact marks RetriesCallback as an analysis fact.
func (*RetriesCallback) AFact() {}

func (f *RetriesCallback) String() string { return fmt.Sprintf("retriesCallback(%d)", f.Param) }

// RetriesCallback returns the index of the callback parameter fn retries
// without a context (the RetriesCallback fact), or -1.
func (r *Result) RetriesCallback(fn *types.Func) int {
	if fn == nil {
		return -1
	}
	fn = fn.Origin()
	if i, ok := r.retriers[fn]; ok {
		return i
	}
	var f RetriesCallback
	if fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn, &f) {
		return f.Param
	}
	return -1
}

// computeRetriers finds the package's functions with the RetriesCallback
// fact and exports it.
func (r *Result) computeRetriers(pass *analysis.Pass) {
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil || analysisutil.TakesContext(f.Sig) || f.HasContext() {
			continue
		}
		params := f.Sig.Params()
		for i := range params.Len() {
			p := params.At(i)
			sig, ok := p.Type().Underlying().(*types.Signature)
			if !ok || p.Name() == "" || p.Name() == "_" || analysisutil.ErrorResult(sig) < 0 {
				continue
			}
			if r.retriesIn(f.Body, p) {
				r.retriers[f.Obj] = i
				analysisutil.ExportFuncFact(pass, f.Obj, &RetriesCallback{Param: i})
				break
			}
		}
	}
}

// retriesIn reports whether a loop of body (outside function literals)
// calls p and waits.
func (r *Result) retriesIn(body *ast.BlockStmt, p *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			found = r.callsAndWaits(n.Body, p)
			return !found
		case *ast.RangeStmt:
			found = r.callsAndWaits(n.Body, p)
			return !found
		}
		return true
	})
	return found
}

func (r *Result) callsAndWaits(body *ast.BlockStmt, p *types.Var) bool {
	calls, waits := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && r.info.Uses[id] == p {
				calls = true
			}
			fn := analysisutil.Callee(r.info, n)
			if analysisutil.IsFunc(fn, "time", "Sleep") || fn != nil && r.Sleeps(fn) {
				waits = true
			}
		case *ast.UnaryExpr:
			if t := r.info.TypeOf(n.X); n.Op == token.ARROW && t != nil {
				if ch, ok := t.Underlying().(*types.Chan); ok && analysisutil.IsNamed(ch.Elem(), "time", "Time") {
					waits = true
				}
			}
		}
		return true
	})
	return calls && waits
}
