package ctxflow

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// callIndex holds the static call sites of the package's declared
// functions and the functions that escape as values.
type callIndex struct {
	calls   map[*types.Func][]*ast.CallExpr
	escapes map[*types.Func]bool
}

// CallsOf returns the static calls of fn (a function or method declared in
// this package; instances are folded into their generic origin) made in
// this package, and whether fn is also used as a value (a method value, a
// function passed or stored, an exported name or a method that callers
// outside this package, or an interface, may call). A function with no
// calls here and escapes false is dead code in this package.
func (r *Result) CallsOf(fn *types.Func) (calls []*ast.CallExpr, escapes bool) {
	if fn == nil {
		return nil, false
	}
	fn = fn.Origin()
	r.callsOnce.Do(func() { r.calls = r.buildCallIndex() })
	escapes = r.calls.escapes[fn] || fn.Exported()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && (fn.Exported() || r.interfaceMethod(fn.Name())) {
		// An interface may reach it. An unexported method that no
		// interface of the package names cannot be called dynamically
		// (an unexported name satisfies only the package's interfaces).
		escapes = true
	}
	return r.calls.calls[fn], escapes
}

func (r *Result) buildCallIndex() *callIndex {
	ix := &callIndex{calls: make(map[*types.Func][]*ast.CallExpr), escapes: make(map[*types.Func]bool)}
	callee := make(map[*ast.Ident]bool) // identifiers in call position
	for c := range r.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		id := calleeIdent(call)
		if id == nil {
			continue
		}
		if fn, ok := r.info.Uses[id].(*types.Func); ok && fn.Pkg() == r.pass.Pkg {
			callee[id] = true
			ix.calls[fn.Origin()] = append(ix.calls[fn.Origin()], call)
		}
	}
	for id, obj := range r.info.Uses {
		if fn, ok := obj.(*types.Func); ok && fn.Pkg() == r.pass.Pkg && !callee[id] {
			ix.escapes[fn.Origin()] = true
		}
	}
	return ix
}

// calleeIdent returns the identifier naming call's function: f, x.M, or
// f[T] for an instantiation; nil for other callees.
func calleeIdent(call *ast.CallExpr) *ast.Ident {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return fun
	case *ast.SelectorExpr:
		return fun.Sel
	case *ast.IndexExpr:
		id, _ := ast.Unparen(fun.X).(*ast.Ident)
		return id
	case *ast.IndexListExpr:
		id, _ := ast.Unparen(fun.X).(*ast.Ident)
		return id
	}
	return nil
}

// recordParams records, for each error parameter of the package's declared
// functions, the arguments the package's static calls pass for it, so that
// a parameter carries cancellation when a caller hands it a carrier. The
// records sit at the parameter's declaration, before the body, and
// dominate nothing: the parameter may hold any caller's value until the
// body assigns it. Callers outside the package are not known here.
func (r *Result) recordParams() {
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Sig == nil {
			continue
		}
		params := f.Sig.Params()
		var errParams []int
		for i := 0; i < params.Len(); i++ {
			if f.Sig.Variadic() && i == params.Len()-1 {
				break
			}
			if analysisutil.IsError(params.At(i).Type()) && params.At(i).Name() != "" && params.At(i).Name() != "_" {
				errParams = append(errParams, i)
			}
		}
		if len(errParams) == 0 {
			continue
		}
		calls, _ := r.CallsOf(f.Obj)
		for _, call := range calls {
			if call.Ellipsis.IsValid() || r.methodExpr(call) {
				continue
			}
			for _, i := range errParams {
				if i >= len(call.Args) || len(call.Args) != params.Len() {
					continue
				}
				v := params.At(i)
				r.assigns[v] = append(r.assigns[v], assign{pos: v.Pos(), scope: f.Type, rhs: call.Args[i], param: true})
			}
		}
	}
}

// methodExpr reports whether call calls a method expression, T.M(recv, ...),
// whose arguments are shifted by the receiver.
func (r *Result) methodExpr(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	tv, ok := r.info.Types[sel.X]
	return ok && tv.IsType()
}

// ParamOf returns the declared function of this package that v is a
// parameter of, and its index; nil when v is no such parameter.
func (r *Result) ParamOf(v *types.Var) (*Func, int) {
	r.paramsOnce.Do(func() {
		r.params = make(map[*types.Var]paramRef)
		for _, f := range r.Funcs {
			if f.Obj == nil || f.Sig == nil {
				continue
			}
			for i := range f.Sig.Params().Len() {
				r.params[f.Sig.Params().At(i)] = paramRef{f, i}
			}
		}
	})
	p, ok := r.params[v]
	if !ok {
		return nil, -1
	}
	return p.f, p.i
}

type paramRef struct {
	f *Func
	i int
}

// AssignedInBody reports whether the error variable v is assigned by a
// statement of the package (not only given a value by callers, for a
// parameter).
func (r *Result) AssignedInBody(v *types.Var) bool {
	for _, a := range r.assigns[v] {
		if !a.param {
			return true
		}
	}
	return false
}
