package ctxflow

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// FreshErrors is an object fact on a *types.Func: every error the function
// returns is made fresh, so none is, or wraps, a context's error. Its
// returns give nil, errors.New(...), fmt.Errorf without %w, a package
// sentinel other than the context's, or the error of another such
// function. A caller that formats such an error with %v loses no identity,
// and no cancellation can be read from it with errors.Is. An interface
// method has the fact when every implementation in the package declaring
// the interface has it (freshInterfaceMethods).
type FreshErrors struct{}

// AFact marks FreshErrors as an analysis fact.
func (*FreshErrors) AFact() {}

func (*FreshErrors) String() string { return "freshErrors" }

// freshFuncs computes the package's functions whose returned errors are
// all fresh, and that make at least one (a function that returns only nil
// is a stub, left alone), as a greatest fixed point over the calls among
// them.
func (r *Result) freshFuncs(decls []*Func) map[*types.Func]bool {
	return r.errorFixpoint(decls, nil, r.freshExpr, func(made, local, _ int) bool {
		// A function that only ever returns nil is a stub or a no-op
		// implementation: left context-bound, as callers' tests expect.
		return made > 0 || local > 0
	})
}

// errorFixpoint computes, as a greatest fixed point over the calls among
// them, the package's functions with an error result (skip leaves some
// out) all of whose returns give an error that classify accepts: it says
// whether the error expression is acceptable and which function of the
// package it depends on, if any (`return g(x)`: g's). keep decides, from
// the count of returns of non-nil acceptable errors, of dependencies and of
// returns, whether a function whose returns are all acceptable is kept.
// A bare return of named results is not acceptable.
func (r *Result) errorFixpoint(decls []*Func, skip func(*Func) bool, classify func(ast.Expr) (bool, *types.Func), keep func(made, local, rets int) bool) map[*types.Func]bool {
	if r.errReturns == nil {
		r.errReturns = r.collectErrReturns(decls)
	}
	calls := make(map[*types.Func][]*types.Func)
	for _, f := range decls {
		rets, ok := r.errReturns[f]
		if !ok || rets == nil || skip != nil && skip(f) {
			continue // no error result, or a bare return of named results
		}
		good, made := true, 0
		var local []*types.Func
		for _, e := range rets {
			ok, dep := classify(e)
			switch {
			case !ok:
				good = false
			case dep != nil:
				local = append(local, dep)
			case !r.nilReturn(e):
				made++
			}
			if !good {
				break
			}
		}
		if good && keep(made, len(local), len(rets)) {
			calls[f.Obj] = local
		}
	}
	for changed := true; changed; {
		changed = false
		for fn, deps := range calls {
			for _, d := range deps {
				if _, still := calls[d]; !still {
					delete(calls, fn)
					changed = true
					break
				}
			}
		}
	}
	out := make(map[*types.Func]bool, len(calls))
	for fn := range calls {
		out[fn] = true
	}
	return out
}

// collectErrReturns walks, once for the fixed points above, each declared
// function with an error result and lists the error expressions its
// returns give (`return g(x)`: the call); a function with a bare return of
// named results maps to nil, one without an error result is absent.
func (r *Result) collectErrReturns(decls []*Func) map[*Func][]ast.Expr {
	out := make(map[*Func][]ast.Expr)
	addrTaken := make(map[*types.Var]bool)
	for n := range r.ins.Root().Preorder((*ast.UnaryExpr)(nil)) {
		if u := n.Node().(*ast.UnaryExpr); u.Op == token.AND {
			if id, ok := ast.Unparen(u.X).(*ast.Ident); ok {
				if v, ok := r.info.Uses[id].(*types.Var); ok && analysisutil.IsError(v.Type()) {
					addrTaken[v] = true
				}
			}
		}
	}
	for _, f := range decls {
		if f.Obj == nil {
			continue
		}
		idx := analysisutil.ErrorResult(f.Sig)
		if idx < 0 {
			continue
		}
		rets := []ast.Expr{}
		ast.Inspect(f.Body, func(n ast.Node) bool {
			if rets == nil {
				return false
			}
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				switch {
				case len(n.Results) == f.Sig.Results().Len():
					e := n.Results[idx]
					r.noteNilAtReturn(f, n, e)
					if r.nilAtReturn[e] {
						rets = append(rets, e)
					} else {
						rets = append(rets, r.definitions(f, e, addrTaken, map[*types.Var]bool{}, r.nonNilDefs(f, e, n))...)
					}
				case len(n.Results) == 1:
					rets = append(rets, n.Results[0]) // return g(x): g's error
				default:
					rets = nil // a bare return of named results
					return false
				}
			}
			return true
		})
		out[f] = rets
	}
	return out
}

// definitions returns what the returned error e may be: e itself, or, for
// a local variable of f's body whose address is never taken, the values
// assigned to it (the call, for a result of a tuple assignment; nothing
// for the zero value), followed the same way through other such
// variables. `if ok, err := v.audience(tok); !ok { return nil, err }`
// returns what audience returns. A variable assigned from an iterator, a
// range or anything the index does not record stays itself.
//
// live, when not nil, holds the ends of the assignments of e's variable
// whose value can reach the return while not nil (nonNilDefs): the others
// give the return nil, and are left out.
func (r *Result) definitions(f *Func, e ast.Expr, addrTaken map[*types.Var]bool, seen map[*types.Var]bool, live map[token.Pos]bool) []ast.Expr {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return []ast.Expr{e}
	}
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || addrTaken[v] || v.Pos() < f.Body.Pos() || v.Pos() >= f.Body.End() {
		return []ast.Expr{e}
	}
	if seen[v] {
		return nil
	}
	seen[v] = true
	list := r.assigns[v]
	if len(list) == 0 {
		return []ast.Expr{e}
	}
	var out []ast.Expr
	for _, a := range list {
		switch {
		case a.iter != nil || a.param || a.ret:
			return []ast.Expr{e}
		case live != nil && !live[a.pos]:
			// Nil wherever it reaches the return.
		case a.call != nil:
			out = append(out, a.call)
		case a.rhs != nil:
			out = append(out, r.definitions(f, a.rhs, addrTaken, seen, nil)...)
		}
	}
	return out
}

// nonNilDefs returns the ends of the assignments of the local error e
// whose value can reach the return ret while not nil (flow's
// NonNilDefsReaching), or nil when the graph cannot tell.
func (r *Result) nonNilDefs(f *Func, e ast.Expr, ret *ast.ReturnStmt) map[token.Pos]bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	g := r.graphs.Func(f.Node)
	if g == nil {
		return nil
	}
	defs, _, ok := g.NonNilDefsReaching(v, ret)
	if !ok {
		return nil
	}
	live := make(map[token.Pos]bool, len(defs))
	for _, d := range defs {
		live[d.End()] = true
	}
	return live
}

// noteNilAtReturn records e, the error a return gives, when it is a local
// variable that is nil on every path to that return (`return token, err`
// after every failure of err returned early).
func (r *Result) noteNilAtReturn(f *Func, ret *ast.ReturnStmt, e ast.Expr) {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return
	}
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return
	}
	if g := r.graphs.Func(f.Node); g != nil && g.NilAt(v, ret) {
		if r.nilAtReturn == nil {
			r.nilAtReturn = make(map[ast.Expr]bool)
		}
		r.nilAtReturn[e] = true
	}
}

// nilReturn reports whether the returned error e is nil: the literal, or a
// variable nil at its return (noteNilAtReturn).
func (r *Result) nilReturn(e ast.Expr) bool {
	return isNil(r.info, e) || r.nilAtReturn[e]
}

// freshExpr reports whether the error expression e is fresh, and the
// function of this package it depends on, if any.
func (r *Result) freshExpr(e ast.Expr) (bool, *types.Func) {
	e = ast.Unparen(e)
	if r.nilReturn(e) {
		return true, nil
	}
	switch e := e.(type) {
	case *ast.Ident, *ast.SelectorExpr:
		// A package-level sentinel other than the context's, of a type
		// that does not match other errors itself (no Is, no Unwrap).
		v := analysisutil.PackageVar(r.info, e)
		return v != nil && ContextSentinel(r.info, e) == "" &&
			!analysisutil.HasMethod(v.Type(), "Is") && !analysisutil.HasMethod(v.Type(), "Unwrap"), nil
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		switch {
		case fn == nil:
			return false, nil
		case analysisutil.IsFunc(fn, "errors", "New"):
			return true, nil
		case analysisutil.IsFunc(fn, "fmt", "Errorf"):
			verbs := WrapVerbs(r.info, e)
			if verbs == nil && len(e.Args) > 1 {
				return false, nil // a format the analysis cannot read
			}
			for _, v := range verbs {
				if v == 'w' {
					return false, nil
				}
			}
			return true, nil
		case fn.Pkg() == r.pass.Pkg:
			return true, fn.Origin()
		case r.pass.ImportObjectFact(fn.Origin(), new(FreshErrors)):
			return true, nil
		}
	}
	return false, nil
}

// freshInterfaceMethods adds to fresh the methods of the package's
// interfaces every one of whose implementations in the package is fresh
// (interfaceImpls): `Verifier.Verify`, implemented only by a verifier that
// flattens its errors with %v, gives callers in other packages an error
// with no context's identity left to lose.
func (r *Result) freshInterfaceMethods(fresh map[*types.Func]bool) {
	for m, impls := range r.interfaceImpls() {
		if analysisutil.ErrorResult(m.Type().(*types.Signature)) < 0 {
			continue
		}
		all := true
		for _, impl := range impls {
			all = all && fresh[impl]
		}
		if all {
			fresh[m] = true
		}
	}
}

// interfaceImpls maps each method of the package's interfaces to its
// implementations by the package's concrete types (T or *T; generic types
// left out), when there is at least one. The implementations in the
// package that declares an interface are the ones the analysis knows; an
// interface with none there is left out, and so is a method an embedded
// interface of another package declares.
func (r *Result) interfaceImpls() map[*types.Func][]*types.Func {
	if r.ifaceImpls != nil {
		return r.ifaceImpls
	}
	r.ifaceImpls = make(map[*types.Func][]*types.Func)
	scope := r.pass.Pkg.Scope()
	var concrete []types.Type
	var ifaces []*types.Interface
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if iface, ok := tn.Type().Underlying().(*types.Interface); ok {
			if iface.NumMethods() > 0 && iface.IsMethodSet() {
				ifaces = append(ifaces, iface)
			}
			continue
		}
		if named, ok := tn.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
			continue // a generic type implements per instance
		}
		concrete = append(concrete, tn.Type())
	}
	for _, iface := range ifaces {
		var impls []types.Type
		for _, t := range concrete {
			switch {
			case types.Implements(t, iface):
				impls = append(impls, t)
			case types.Implements(types.NewPointer(t), iface):
				impls = append(impls, types.NewPointer(t))
			}
		}
		if len(impls) == 0 {
			continue
		}
		for m := range iface.Methods() {
			if m.Pkg() != r.pass.Pkg || r.ifaceImpls[m] != nil {
				continue
			}
			var fns []*types.Func
			for _, t := range impls {
				obj, _, _ := types.LookupFieldOrMethod(t, true, r.pass.Pkg, m.Name())
				if fn, ok := obj.(*types.Func); ok {
					fns = append(fns, fn.Origin())
				}
			}
			if len(fns) == len(impls) {
				r.ifaceImpls[m] = fns
			}
		}
	}
	return r.ifaceImpls
}
