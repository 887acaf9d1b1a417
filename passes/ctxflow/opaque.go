package ctxflow

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// IdentityFree is an object fact on a *types.Func: no error the function
// returns matches context.Canceled or context.DeadlineExceeded under
// errors.Is, though it may report a cancellation in its own terms. Its
// returns give fresh errors (see FreshErrors), values of error types that
// errors.Is cannot see through (no Unwrap, and no Is method matching other
// types: `&ZFSError{Err: err}`, grpc's status errors), the results of calls
// declared to return such a type, or the errors of other such functions
// and of the APIs in knowledge.IdentityFree (a gRPC client call). A caller
// that formats such an error with %v loses no identity errors.Is could
// read; it still learns of the failure, so the error may carry a
// cancellation for every rule other than identity's.
type IdentityFree struct{}

// AFact marks IdentityFree as an analysis fact.
func (*IdentityFree) AFact() {}

func (*IdentityFree) String() string { return "identityFree" }

// identityFreeFuncs computes the package's functions whose errors are all
// identity-free and not all nil, as a greatest fixed point.
func (r *Result) identityFreeFuncs(decls []*Func) map[*types.Func]bool {
	keep := func(made, local, _ int) bool { return made > 0 || local > 0 }
	first := r.errorFixpoint(decls, nil, r.identityFreeExpr, keep)
	r.idFreeIfaces = map[*types.Func]bool{}
	r.freshInterfaceMethods(first)
	for m := range first {
		if sig := m.Type().(*types.Signature); sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
			r.idFreeIfaces[m] = true
		}
	}
	if len(r.idFreeIfaces) == 0 {
		return first
	}
	return r.errorFixpoint(decls, nil, r.identityFreeExpr, keep)
}

// identityFreeExpr classifies a returned error for identityFreeFuncs.
func (r *Result) identityFreeExpr(e ast.Expr) (bool, *types.Func) {
	if ok, dep := r.freshExpr(e); ok && dep == nil {
		return true, nil
	}
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	switch e := e.(type) {
	case *ast.CompositeLit:
		return r.identityFreeType(r.info.TypeOf(e)), nil
	case *ast.CallExpr:
		if r.identityFreeType(r.info.TypeOf(e)) {
			return true, nil // a constructor of a concrete such type
		}
		fn := analysisutil.Callee(r.info, e)
		switch {
		case fn == nil:
			return false, nil
		case analysisutil.IsBuiltin(r.info, e, "new"):
			return len(e.Args) == 1 && r.identityFreeType(r.info.TypeOf(e.Args[0])), nil
		case identityFreeAPI(fn):
			return true, nil
		case analysisutil.IsFunc(fn, "fmt", "Errorf"):
			return r.wrapsOnlyIdentityFree(e)
		case fn.Pkg() == r.pass.Pkg:
			if sig := fn.Type().(*types.Signature); sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) {
				// A method of an interface of the package whose every
				// implementation here was found identity-free by a first
				// round that did not follow interface calls (a generated
				// gRPC client): following them in the same round would let
				// a delegating implementation (r.next.Handle) prove itself.
				return r.idFreeIfaces[fn.Origin()], nil
			}
			return true, fn.Origin()
		}
		return r.pass.ImportObjectFact(fn.Origin(), new(IdentityFree)), nil
	}
	return false, nil
}

// wrapsOnlyIdentityFree classifies fmt.Errorf(..., %w of err): identity-
// free when every %w operand is (an operand variable assigned once, from
// a call, is that call's error; `resp, err := client.Lookup(ctx, req)`).
func (r *Result) wrapsOnlyIdentityFree(call *ast.CallExpr) (bool, *types.Func) {
	verbs := WrapVerbs(r.info, call)
	if verbs == nil && len(call.Args) > 1 {
		return false, nil
	}
	var dep *types.Func
	for i, v := range verbs {
		if v != 'w' {
			continue
		}
		if i+1 >= len(call.Args) {
			return false, nil
		}
		op := ast.Unparen(call.Args[i+1])
		if id, ok := op.(*ast.Ident); ok {
			vr, ok := r.info.Uses[id].(*types.Var)
			if !ok || len(r.assigns[vr]) != 1 || r.assigns[vr][0].call == nil {
				return false, nil
			}
			op = r.assigns[vr][0].call
		}
		ok, d := r.identityFreeExpr(op)
		if !ok || d != nil && dep != nil && d != dep {
			return false, nil
		}
		if d != nil {
			dep = d
		}
	}
	return true, dep
}

// identityFreeAPI reports whether fn is in knowledge.IdentityFree.
func identityFreeAPI(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	typ := analysisutil.RecvTypeName(fn)
	if typ == "" && fn.Type().(*types.Signature).Recv() != nil {
		typ = "?" // a method of an unnamed interface: only prefixes match
	}
	return knowledge.IdentityFree(fn.Pkg().Path(), typ, fn.Name())
}

// identityFreeType reports whether t is a concrete error type that
// errors.Is cannot match with a context's error: neither t nor *t has an
// Unwrap method, and an Is method, if any, answers false for a target of
// another type (it starts `x, ok := target.(*T2); if !ok { return false
// }` with T2 concrete).
// IdentityFreeType reports whether an error of dynamic type t can never
// match a context's error under errors.Is (see identityFreeType).
func (r *Result) IdentityFreeType(t types.Type) bool { return r.identityFreeType(t) }

func (r *Result) identityFreeType(t types.Type) bool {
	if t == nil || types.IsInterface(t) {
		return false
	}
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	if _, ok := types.Unalias(base).(*types.Named); !ok {
		return false
	}
	ptr := types.NewPointer(base)
	if !types.Implements(ptr, errorIface) && !types.Implements(base, errorIface) {
		return false
	}
	for _, name := range []string{"Unwrap", "As"} {
		if obj, _, _ := types.LookupFieldOrMethod(ptr, true, nil, name); obj != nil {
			return false
		}
	}
	obj, _, _ := types.LookupFieldOrMethod(ptr, true, nil, "Is")
	if obj == nil {
		return true
	}
	m, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	d := r.DeclOf(m.Origin())
	return d != nil && isOwnTypeIs(r.info, d)
}

var errorIface = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// isOwnTypeIs reports whether the Is method f starts by asserting its
// target to a concrete type and returning false when it is not one.
func isOwnTypeIs(info *types.Info, f *Func) bool {
	if f.Sig.Params().Len() != 1 || len(f.Body.List) < 2 {
		return false
	}
	target := f.Sig.Params().At(0)
	as, ok := f.Body.List[0].(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return false
	}
	ta, ok := ast.Unparen(as.Rhs[0]).(*ast.TypeAssertExpr)
	if !ok || ta.Type == nil || types.IsInterface(info.TypeOf(ta.Type)) {
		return false
	}
	if id, ok := ast.Unparen(ta.X).(*ast.Ident); !ok || info.Uses[id] != target {
		return false
	}
	okID, ok := as.Lhs[1].(*ast.Ident)
	if !ok {
		return false
	}
	okVar := info.ObjectOf(okID)
	ifs, ok := f.Body.List[1].(*ast.IfStmt)
	if !ok || ifs.Init != nil || len(ifs.Body.List) != 1 {
		return false
	}
	not, ok := ast.Unparen(ifs.Cond).(*ast.UnaryExpr)
	if !ok || not.Op != token.NOT {
		return false
	}
	if id, ok := ast.Unparen(not.X).(*ast.Ident); !ok || info.Uses[id] != okVar {
		return false
	}
	ret, ok := ifs.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	id, ok := ast.Unparen(ret.Results[0]).(*ast.Ident)
	return ok && id.Name == "false" && info.Uses[id] == types.Universe.Lookup("false")
}

// HoldsContextError reports whether the error expression e may carry
// cancellation (MayCarryCancel) as a value that errors.Is can match with
// a context's error: not when every value it may hold is identity-free
// (see IdentityFree): the result of a gRPC call, a value of an error type
// without Unwrap. Formatting such an error with %v loses nothing.
func (r *Result) HoldsContextError(e ast.Expr) bool {
	return r.MayCarryCancel(e) && !r.identityFreeValue(e, 0)
}

func (r *Result) identityFreeValue(e ast.Expr, depth int) bool {
	e = ast.Unparen(e)
	switch e := e.(type) {
	case *ast.CallExpr:
		return r.callIdentityFree(e)
	case *ast.Ident:
		v, ok := r.info.Uses[e].(*types.Var)
		if !ok || depth > 8 {
			return false
		}
		// The values v can hold here: its reaching definitions, when the
		// graph sees them all.
		if f := r.EnclosingPos(e.Pos()); f != nil {
			if g := r.graphs.Func(f.Node); g != nil {
				if defs, entry, ok := g.DefsReaching(v, e); ok && !entry && len(defs) > 0 {
					for _, d := range defs {
						if !r.defIdentityFree(g, d, v, depth) {
							return false
						}
					}
					return true
				}
			}
		}
		list := r.assigns[v]
		if len(list) == 0 {
			return false
		}
		for _, a := range list {
			switch {
			case a.param || a.iter != nil || a.ret:
				return false
			case a.call != nil:
				if !r.callIdentityFree(a.call) {
					return false
				}
			case a.rhs != nil:
				if isNil(r.info, a.rhs) {
					continue
				}
				if !r.identityFreeValue(a.rhs, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// defIdentityFree reports whether the definition d of v (a statement
// DefsReaching found) gives it an identity-free error: the call of a
// tuple assignment, or a value that is.
func (r *Result) defIdentityFree(g *flow.Graph, d ast.Node, v *types.Var, depth int) bool {
	if x := g.DefValue(d, v); x != nil {
		return isNil(r.info, x) || r.identityFreeValue(x, depth+1)
	}
	if vs, ok := d.(*ast.ValueSpec); ok && len(vs.Values) == 0 {
		return true // var lastErr error: nil
	}
	if as, ok := d.(*ast.AssignStmt); ok && len(as.Rhs) == 1 {
		if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
			return r.callIdentityFree(call)
		}
	}
	return false
}

// callIdentityFree reports whether the errors call returns are
// identity-free.
func (r *Result) callIdentityFree(call *ast.CallExpr) bool {
	if ok, dep := r.identityFreeExpr(call); ok {
		return dep == nil || r.idFree[dep]
	}
	return false
}

// Detaches is an object fact on a *types.Func whose returned errors
// cannot carry its caller's cancellation though it may take a context:
// each is a fresh error (see FreshErrors), nil, the error of a call given
// only detached contexts (`filer.Remove(context.Background(), ...)`), or
// that of another such function. Dropping such an error loses a failure,
// not a cancellation; the detach itself is detachedctx's finding.
type Detaches struct{}

// AFact marks Detaches as an analysis fact.
func (*Detaches) AFact() {}

func (*Detaches) String() string { return "detaches" }

// holdsContext reports whether call's receiver or an argument is a value
// with a context inside (a struct field, a Context method), or a function
// value: the callee may end with it, or report the errors of work running
// under it (`s.wait(context.Background())` of a scope whose goroutines run
// under the scope's context, a callback's error passed back), whatever
// context it is given.
func (r *Result) holdsContext(call *ast.CallExpr) bool {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if s := r.info.Selections[sel]; s != nil && hasContextInside(s.Recv()) {
			return true
		}
	}
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		if t == nil {
			continue
		}
		if _, isFunc := t.Underlying().(*types.Signature); isFunc {
			// A callback (pb.WithClient(..., fn)): its errors come back
			// through the call, and it runs under whatever context it
			// closes over.
			return true
		}
		if !analysisutil.IsContext(t) && hasContextInside(t) {
			return true
		}
	}
	return false
}

// detachingFuncs computes the package's functions with the Detaches fact
// that make at least one detached call (the others are fresh, or stubs).
func (r *Result) detachingFuncs(decls []*Func) map[*types.Func]bool {
	classify := func(e ast.Expr) (bool, *types.Func) {
		if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && r.detachedCall(call) && !r.holdsContext(call) {
			return true, nil
		}
		if ok, dep := r.freshExpr(e); ok {
			return true, dep
		}
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false, nil
		}
		fn := analysisutil.Callee(r.info, call)
		switch {
		case fn == nil:
			return false, nil
		case fn.Pkg() == r.pass.Pkg:
			return true, fn.Origin()
		}
		return r.pass.ImportObjectFact(fn.Origin(), new(Detaches)), nil
	}
	out := r.errorFixpoint(decls, nil, classify, func(made, local, _ int) bool { return made > 0 || local > 0 })
	for fn := range out {
		if r.fresh[fn] {
			delete(out, fn) // fresh already says it
		}
	}
	return out
}
