package ctxflow

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// MakesRoot is an object fact on a *types.Func that takes no context and
// has none in reach (no context or request parameter, no context field of
// its receiver), yet runs context-bound work: outside function literals and
// deferred calls, it passes a root context (context.Background() or TODO(),
// or a context derived only from one), or a request made without a
// context, to a call that runs work under it (one whose error may carry
// the context's cancellation: not a constructor like NewRequestWithContext,
// not a values-only use), or it calls a function with this fact. A root
// bounded by its own deadline (context.WithTimeout(context.Background(),
// d)) does not earn it: the function chose how long its work may run; nor
// does a root made with a cancel function the function keeps in a field,
// a composite literal or a result (the object it builds owns that
// lifetime). Called where a caller's context is in
// reach, it cuts that context off: the work it does keeps running after
// the caller's deadline or cancellation (contextcheck's transitive rule).
type MakesRoot struct {
	// Chain names the callees from this function down to the one that
	// makes the root: empty when this function makes it.
	Chain []string
	// Root is "context.Background()" or "context.TODO()"; At is where the
	// root is made, as "file.go:line", in package Pkg.
	Root, At, Pkg string
}

// AFact marks MakesRoot as an analysis fact.
func (*MakesRoot) AFact() {}

func (m *MakesRoot) String() string {
	return fmt.Sprintf("makesRoot(%s at %s via %s)", m.Root, m.At, strings.Join(m.Chain, "->"))
}

// MakesRoot returns the MakesRoot fact of fn, or nil.
func (r *Result) MakesRoot(fn *types.Func) *MakesRoot {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if fn.Pkg() == r.pass.Pkg {
		return r.roots[fn]
	}
	var m MakesRoot
	if r.pass.ImportObjectFact(fn, &m) {
		return &m
	}
	return nil
}

// computeRoots finds the package's functions with the MakesRoot fact, to a
// fixed point over calls between them, and exports the facts.
func (r *Result) computeRoots(pass *analysis.Pass) {
	var cands []*Func
	for _, f := range r.Funcs {
		if f.Obj == nil || f.HasContext() || analysisutil.TakesContext(f.Sig) || f.Body == nil {
			continue
		}
		if f.Sig.Recv() == nil && (f.Obj.Name() == "main" || f.Obj.Name() == "init") {
			continue
		}
		if strings.HasSuffix(pass.Fset.File(f.Body.Pos()).Name(), "_test.go") {
			continue
		}
		cands = append(cands, f)
	}
	// One walk per body; the rounds of the fixed point only re-read what
	// it found, in source order.
	events := make([][]rootEvent, len(cands))
	for i, f := range cands {
		events[i] = r.bodyEvents(f.Body)
	}
	for changed := true; changed; {
		changed = false
		for i, f := range cands {
			if r.roots[f.Obj] != nil {
				continue
			}
			if m := r.firstRoot(events[i]); m != nil {
				r.roots[f.Obj] = m
				changed = true
			}
		}
	}
	for fn, m := range r.roots {
		analysisutil.ExportFuncFact(pass, fn, m)
	}
}

// A rootEvent is, in source order, a place in a body that earns the
// MakesRoot fact: a root passed to work (root), or a call of a function of
// the package (callee) that earns it if that function has the fact.
type rootEvent struct {
	root   *MakesRoot
	callee *types.Func
}

// firstRoot returns the fact the first deciding event gives, or nil.
func (r *Result) firstRoot(events []rootEvent) *MakesRoot {
	for _, e := range events {
		if e.root != nil {
			return e.root
		}
		if m := r.roots[e.callee]; m != nil {
			return &MakesRoot{Chain: append([]string{e.callee.Name()}, m.Chain...), Root: m.Root, At: m.At, Pkg: m.Pkg}
		}
	}
	return nil
}

// bodyEvents walks body, outside function literals and deferred and go
// statements (their own lifetime, or cleanup), for the events that can
// earn it the MakesRoot fact.
func (r *Result) bodyEvents(body *ast.BlockStmt) []rootEvent {
	var out []rootEvent
	at := func(n ast.Node) string {
		p := r.pass.Fset.Position(n.Pos())
		return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt:
			return false
		case *ast.CallExpr:
			fn := analysisutil.Callee(r.info, n)
			if fn != nil {
				if fn = fn.Origin(); fn.Pkg() == r.pass.Pkg {
					out = append(out, rootEvent{callee: fn})
				} else if m := r.MakesRoot(fn); m != nil {
					out = append(out, rootEvent{root: &MakesRoot{Chain: append([]string{fn.Name()}, m.Chain...), Root: m.Root, At: m.At, Pkg: m.Pkg}})
					return false
				}
			}
			if !r.runsWork(n, fn) {
				// context.WithTimeout(context.Background(), d) derives,
				// http.NewRequestWithContext stores, a logger reads values
				// (slog's Warn logs under Background, a handler's Enabled
				// answers a bool): the work runs where the context is used,
				// if anywhere.
				return true
			}
			for _, arg := range n.Args {
				if t := r.info.TypeOf(arg); analysisutil.IsHTTPRequest(t) && r.requestWithoutContext(arg) {
					// c.Do(req) with req made without a context.
					out = append(out, rootEvent{root: &MakesRoot{Root: "a request made without a context", At: at(arg), Pkg: r.pass.Pkg.Path()}})
					continue
				}
				if !analysisutil.IsContext(r.info.TypeOf(arg)) {
					continue
				}
				if r.DeadlineOnly(arg) {
					// context.WithTimeout(context.Background(), d): the
					// callee bounds the work by a deadline of its own
					// choosing, a deliberate lifetime (the direct rule
					// still reports it where a context is in reach).
					continue
				}
				if r.cancelKept(body, arg) {
					// ctx, cancel := context.WithCancel(context.Background())
					// with cancel stored in the object being built
					// (`&Store{shutdown: cancel}`): a lifetime the object
					// owns and its Shutdown ends, not a caller's context
					// cut off.
					continue
				}
				if root := r.rootOf(arg, 0); root != nil {
					name := "context.Background()"
					if analysisutil.IsCallToFunc(r.info, root, "context", "TODO") {
						name = "context.TODO()"
					}
					out = append(out, rootEvent{root: &MakesRoot{Root: name, At: at(root), Pkg: r.pass.Pkg.Path()}})
				}
			}
		}
		return true
	})
	return out
}

// cancelKept reports whether the context expression e is a local made,
// with its cancel function, by a context function (`ctx, cancel :=
// context.WithCancel(parent)`) whose cancel function body stores in a
// field or a composite literal, or returns: whoever holds the value it
// built owns the context's lifetime.
func (r *Result) cancelKept(body *ast.BlockStmt, e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return false
	}
	_, lhs, rhs, idx, ok := analysisutil.Declaration(r.ins, v)
	if !ok || len(lhs) != 2 || len(rhs) != 1 || idx != 0 {
		return false
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok {
		return false
	}
	if fn := analysisutil.Callee(r.info, call); fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" {
		return false
	}
	cid, ok := ast.Unparen(lhs[1]).(*ast.Ident)
	if !ok {
		return false
	}
	cancel := r.info.ObjectOf(cid)
	if cancel == nil {
		return false
	}
	is := func(x ast.Expr) bool {
		id, ok := ast.Unparen(x).(*ast.Ident)
		return ok && r.info.Uses[id] == cancel
	}
	kept := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			kept = kept || is(n.Value)
		case *ast.CompositeLit:
			for _, el := range n.Elts {
				kept = kept || is(el)
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if _, sel := ast.Unparen(l).(*ast.SelectorExpr); sel && i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) && is(n.Rhs[i]) {
					kept = true
				}
			}
		case *ast.ReturnStmt:
			for _, x := range n.Results {
				kept = kept || is(x)
			}
		}
		return !kept
	})
	return kept
}

// rootOf returns the context.Background() or TODO() call that the context
// expression e is made from alone (directly, through local variables only
// ever assigned such values, or through context.With* of one), or nil.
func (r *Result) rootOf(e ast.Expr, depth int) *ast.CallExpr {
	var root *ast.CallExpr
	var isRoot func(call *ast.CallExpr, depth int) bool
	isRoot = func(call *ast.CallExpr, depth int) bool {
		fn := analysisutil.Callee(r.info, call)
		switch {
		case analysisutil.IsFunc(fn, "context", "Background"), analysisutil.IsFunc(fn, "context", "TODO"):
			if root == nil {
				root = call
			}
			return true
		case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" && strings.HasPrefix(fn.Name(), "With") && fn.Name() != "WithoutCancel" && len(call.Args) > 0:
			return r.ctxIs(call.Args[0], isRoot, depth+1)
		}
		return false
	}
	if !r.ctxIs(e, isRoot, depth) {
		return nil
	}
	return root
}

// runsWork reports whether call (of fn, or of a function value when fn is
// nil) runs work under the context it is given: it can fail (an error
// result, whose error may carry the context's end, and not a constructor,
// a values-only use or a log call: boundCall), or it observes the
// context's end itself (ChecksContext).
func (r *Result) runsWork(call *ast.CallExpr, fn *types.Func) bool {
	if analysisutil.FormatsOperands(fn) {
		return false
	}
	if fn != nil && r.ChecksContext(fn) {
		return true
	}
	sig, _ := r.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	return sig != nil && analysisutil.ErrorResult(sig) >= 0 && r.boundCall(call)
}

// requestWithoutContext reports whether the request expression e was made
// by http.NewRequest (or httptest's), or given a root context
// (NewRequestWithContext, WithContext, Clone), directly or through local
// variables only ever assigned such values: an outgoing request that runs
// under no caller's context. A request built field by field (a server
// parsing one) is not.
func (r *Result) requestWithoutContext(e ast.Expr) bool {
	return r.requestIs(e, 0, func(ctx ast.Expr) bool { return r.rootOf(ctx, 0) != nil }, nil)
}
