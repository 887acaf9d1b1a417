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
// not a values-only use), or it calls a function with this fact. Called where a caller's context is in
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
	for changed := true; changed; {
		changed = false
		for _, f := range cands {
			if r.roots[f.Obj] != nil {
				continue
			}
			if m := r.bodyRoot(f.Body); m != nil {
				r.roots[f.Obj] = m
				changed = true
			}
		}
	}
	for fn, m := range r.roots {
		analysisutil.ExportFuncFact(pass, fn, m)
	}
}

// bodyRoot returns the MakesRoot fact body earns, or nil.
func (r *Result) bodyRoot(body *ast.BlockStmt) *MakesRoot {
	var out *MakesRoot
	visit := func(n ast.Node) bool {
		if out != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit, *ast.DeferStmt, *ast.GoStmt:
			return false // its own lifetime, or cleanup
		case *ast.CallExpr:
			fn := analysisutil.Callee(r.info, n)
			if m := r.MakesRoot(fn); m != nil && fn.Origin() != nil {
				out = &MakesRoot{Chain: append([]string{fn.Name()}, m.Chain...), Root: m.Root, At: m.At, Pkg: m.Pkg}
				return false
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
				if t := r.info.TypeOf(arg); analysisutil.IsHTTPRequest(t) && r.requestWithoutContext(arg, 0) {
					// c.Do(req) with req made without a context.
					p := r.pass.Fset.Position(arg.Pos())
					out = &MakesRoot{Root: "a request made without a context", At: fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line), Pkg: r.pass.Pkg.Path()}
					return false
				}
				if !analysisutil.IsContext(r.info.TypeOf(arg)) {
					continue
				}
				if root := r.rootOf(arg, 0); root != nil {
					name := "context.Background()"
					if analysisutil.IsCallToFunc(r.info, root, "context", "TODO") {
						name = "context.TODO()"
					}
					p := r.pass.Fset.Position(root.Pos())
					out = &MakesRoot{Root: name, At: fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line), Pkg: r.pass.Pkg.Path()}
					return false
				}
			}
		}
		return true
	}
	ast.Inspect(body, visit)
	return out
}

// rootOf returns the context.Background() or TODO() call that the context
// expression e is made from alone (directly, through local variables only
// ever assigned such values, or through context.With* of one), or nil.
func (r *Result) rootOf(e ast.Expr, depth int) *ast.CallExpr {
	if depth > 8 {
		return nil
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		switch {
		case analysisutil.IsFunc(fn, "context", "Background"), analysisutil.IsFunc(fn, "context", "TODO"):
			return e
		case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "context" && strings.HasPrefix(fn.Name(), "With") && fn.Name() != "WithoutCancel" && len(e.Args) > 0:
			return r.rootOf(e.Args[0], depth+1)
		}
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok {
			return nil
		}
		vals := r.ctxAssigns[v]
		if len(vals) == 0 {
			return nil
		}
		var first *ast.CallExpr
		for _, val := range vals {
			if val == nil {
				return nil
			}
			root := r.rootOf(val, depth+1)
			if root == nil {
				return nil
			}
			if first == nil {
				first = root
			}
		}
		return first
	}
	return nil
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
func (r *Result) requestWithoutContext(e ast.Expr, depth int) bool {
	if depth > 4 {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		switch {
		case analysisutil.IsFunc(fn, "net/http", "NewRequest"), analysisutil.IsFunc(fn, "net/http/httptest", "NewRequest"):
			return true
		case analysisutil.IsFunc(fn, "net/http", "NewRequestWithContext"),
			analysisutil.IsMethod(fn, "net/http", "Request", "WithContext"), analysisutil.IsMethod(fn, "net/http", "Request", "Clone"):
			return len(e.Args) > 0 && r.rootOf(e.Args[0], 0) != nil
		}
	case *ast.Ident:
		v, ok := r.info.ObjectOf(e).(*types.Var)
		if !ok {
			return false
		}
		list := r.reqAssigns[v]
		if len(list) == 0 {
			return false
		}
		for _, val := range list {
			if val == nil || !r.requestWithoutContext(val, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}
