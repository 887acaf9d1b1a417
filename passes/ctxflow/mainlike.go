package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// MainLike reports whether the process ends when fn returns: fn is main.main
// or an init function, or a function of package main that only main-like
// functions call, each as the last thing they do before returning
// (`if err := run(); err != nil { log.Fatal(err) }`, `os.Exit(run())`).
// Goroutines, pending sends and leases left behind by such a function die
// with the process; they are not leaks. It is the one policy for every
// check that exempts main.
func (r *Result) MainLike(fn *types.Func) bool {
	if fn == nil || fn.Pkg() != r.pass.Pkg {
		return false
	}
	r.mainOnce.Do(func() { r.mainLike = r.computeMainLike() })
	return r.mainLike[fn.Origin()]
}

func (r *Result) computeMainLike() map[*types.Func]bool {
	out := make(map[*types.Func]bool)
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Sig.Recv() != nil {
			continue
		}
		if f.Obj.Name() == "init" || f.Obj.Name() == "main" && r.pass.Pkg.Name() == "main" {
			out[f.Obj] = true
		}
	}
	if r.pass.Pkg.Name() != "main" {
		return out
	}
	for changed := true; changed; {
		changed = false
		for _, f := range r.Funcs {
			if f.Obj == nil || out[f.Obj] || f.Sig.Recv() != nil {
				continue
			}
			calls, escapes := r.CallsOf(f.Obj)
			if escapes || len(calls) == 0 {
				continue
			}
			all := true
			for _, call := range calls {
				caller := r.enclosingDecl(call)
				if caller == nil || !out[caller.Obj] || !r.lastAct(caller, call) {
					all = false
					break
				}
			}
			if all {
				out[f.Obj] = true
				changed = true
			}
		}
	}
	return out
}

// enclosingDecl returns the declared function whose body holds n directly
// (not inside a literal), or nil.
func (r *Result) enclosingDecl(n ast.Node) *Func {
	f := r.EnclosingPos(n.Pos())
	if f == nil || f.Obj == nil {
		return nil
	}
	return f
}

// lastAct reports whether call is, in f's top-level statements, in the last
// one that does anything but exit: every statement after it never returns
// (os.Exit, log.Fatal: analysisutil.NoReturn) or returns.
func (r *Result) lastAct(f *Func, call *ast.CallExpr) bool {
	list := f.Body.List
	for i, st := range list {
		if !(st.Pos() <= call.Pos() && call.End() <= st.End()) {
			continue
		}
		for _, rest := range list[i+1:] {
			switch rest := rest.(type) {
			case *ast.ReturnStmt:
			case *ast.ExprStmt:
				c, ok := ast.Unparen(rest.X).(*ast.CallExpr)
				if !ok || !analysisutil.NoReturn(r.info, c) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}
