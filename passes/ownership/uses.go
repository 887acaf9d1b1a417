package ownership

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// Use says what one piece of code does with a lease.
type Use int

const (
	Borrow  Use = iota // reads it, or passes it to code that does not take ownership
	Release            // releases it (or arranges it, e.g. defer)
	HandOff            // gives it to a new owner: returned, stored, sent, given to a goroutine
)

// Aliases returns objs plus the local variables of body that are assigned
// one of them directly (w := v, w = v, var w = v), transitively. For a kind
// released through a field (a response's Body), a variable assigned that
// field (body := resp.Body) is an alias too: body.Close() releases resp.
func (r *Result) Aliases(body ast.Node, objs map[types.Object]bool, k *Kind) map[types.Object]bool {
	field := ""
	if k != nil && k.Field != "*" {
		field = k.Field
	}
	aliasOf := make(map[types.Object][]*types.Var)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			r.aliasEdges(aliasOf, n.Lhs, n.Rhs, field)
		case *ast.ValueSpec:
			r.aliasEdges(aliasOf, specNames(n), n.Values, field)
		}
		return true
	})
	out := make(map[types.Object]bool, len(objs))
	for o := range objs {
		addAliases(out, aliasOf, o)
	}
	return out
}

// aliasEdges records in aliasOf, for the assignment lhs = rhs, which local
// variables are assigned another variable directly (w := v, w = v,
// var w = v), or, when field is set, that field of another variable
// (w := v.Body). Assignments of unequal lengths (a, b := f()) assign none.
func (r *Result) aliasEdges(aliasOf map[types.Object][]*types.Var, lhs, rhs []ast.Expr, field string) {
	if len(lhs) != len(rhs) {
		return
	}
	for i, rv := range rhs {
		rv = ast.Unparen(rv)
		if sel, ok := rv.(*ast.SelectorExpr); ok && field != "" && sel.Sel.Name == field {
			if s := r.info.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
				rv = ast.Unparen(sel.X)
			}
		}
		id, ok := rv.(*ast.Ident)
		if !ok {
			continue
		}
		from := r.info.Uses[id]
		if from == nil {
			continue
		}
		lid, ok := lhs[i].(*ast.Ident)
		if !ok || lid.Name == "_" {
			continue
		}
		if v, ok := r.info.ObjectOf(lid).(*types.Var); ok && r.isLocal(v) {
			aliasOf[from] = append(aliasOf[from], v)
		}
	}
}

// addAliases adds o and everything aliasOf reaches from it to out.
func addAliases(out map[types.Object]bool, aliasOf map[types.Object][]*types.Var, o types.Object) {
	if out[o] {
		return
	}
	out[o] = true
	for _, v := range aliasOf[o] {
		addAliases(out, aliasOf, v)
	}
}

func specNames(spec *ast.ValueSpec) []ast.Expr {
	names := make([]ast.Expr, len(spec.Names))
	for i, id := range spec.Names {
		names[i] = id
	}
	return names
}

// isLocal reports whether v is a function-local variable.
func (r *Result) isLocal(v *types.Var) bool {
	return v.Parent() != nil && v.Parent() != r.pkg.Scope() && v.Parent() != types.Universe
}

// UseOf returns the strongest use (HandOff > Release > Borrow) that root
// makes of the lease held in objs (a variable and its aliases), for a lease
// of kind k. Assignments to aliases are borrows; the caller tracks aliases
// with Aliases.
func (r *Result) UseOf(root ast.Node, objs map[types.Object]bool, k *Kind) Use {
	best := Borrow
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if deadLiteral(n) {
			return false // _ = func() { resp.Body.Close() }: never runs
		}
		stack = append(stack, n)
		if id, ok := n.(*ast.Ident); ok && objs[r.info.Uses[id]] {
			if u := r.classify(stack, k, objs); u > best {
				best = u
			}
		}
		return best != HandOff
	})
	return best
}

// classify says what the innermost node of stack, an identifier naming the
// lease, does with it. stack holds the path from the root.
func (r *Result) classify(stack []ast.Node, k *Kind, objs map[types.Object]bool) Use {
	for _, n := range stack {
		if _, ok := n.(*ast.GoStmt); ok {
			return HandOff // a goroutine now holds it
		}
	}
	i := len(stack) - 1
	up := func() ast.Node {
		for i--; i >= 0; i-- {
			if _, ok := stack[i].(*ast.ParenExpr); !ok {
				return stack[i]
			}
		}
		return nil
	}
	child := stack[i]
	p := up()
	if sel, ok := p.(*ast.SelectorExpr); ok && sel.Sel == child {
		child, p = sel, up() // the lease is a field: x.f
	}
	// Release through a field: resp.Body.Close().
	if k.Field != "" {
		for {
			sel, ok := p.(*ast.SelectorExpr)
			if !ok || sel.X != child {
				break
			}
			s := r.info.Selections[sel]
			if s == nil || s.Kind() != types.FieldVal || (k.Field != "*" && sel.Sel.Name != k.Field) {
				break
			}
			child, p = p, up()
			if k.Field != "*" {
				break
			}
		}
	}
	switch p := p.(type) {
	case nil:
		return Borrow
	case *ast.SelectorExpr:
		if p.X != child {
			return Borrow
		}
		s := r.info.Selections[p]
		if s == nil {
			return Borrow
		}
		if s.Kind() == types.FieldVal {
			return Borrow // resp.StatusCode
		}
		if k.Releases(p.Sel.Name) {
			return Release // x.Close(), or the method value x.Close
		}
		return Borrow
	case *ast.CallExpr:
		if ast.Unparen(p.Fun) == child {
			if k.Call {
				return Release
			}
			return Borrow
		}
		for ai, a := range p.Args {
			if ast.Unparen(a) == child {
				u := r.argUse(p, ai)
				if u == Borrow && r.resultInPackageVar(stack[:i+1]) {
					// opts.logger = log.New(f, "", 0): whatever the
					// result keeps of f lives as long as the program.
					return HandOff
				}
				if u != Borrow && resultDropped(stack[:i+1]) {
					// _ = http.MaxBytesReader(w, resp.Body, n): the
					// wrapper that took the lease is dropped with it.
					if fn := analysisutil.Callee(r.info, p); fn != nil && r.Wraps(fn, ai) {
						return Borrow
					}
				}
				return u
			}
		}
		return Borrow
	case *ast.ReturnStmt:
		return HandOff
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if ast.Unparen(l) == child {
				return Borrow // overwritten
			}
		}
		if len(p.Lhs) != len(p.Rhs) {
			return HandOff
		}
		for j, rv := range p.Rhs {
			if ast.Unparen(rv) != child {
				continue
			}
			switch l := ast.Unparen(p.Lhs[j]).(type) {
			case *ast.Ident:
				if l.Name == "_" {
					return Borrow
				}
				if v, ok := r.info.ObjectOf(l).(*types.Var); ok && r.isLocal(v) {
					if objs[v] {
						return Borrow // an alias, tracked by the caller
					}
					return Borrow
				}
				return HandOff // a package variable
			case *ast.SelectorExpr:
				if r.ownerReleases(l) {
					return HandOff
				}
				return Borrow
			default:
				return HandOff // m[k] = v, *p = v
			}
		}
		return Borrow
	case *ast.ValueSpec:
		return Borrow // var w = v: an alias
	case *ast.SendStmt:
		if p.Value == child {
			return HandOff
		}
		return Borrow
	case *ast.KeyValueExpr:
		if p.Key == child {
			return Borrow
		}
		if i > 0 {
			if cl, ok := stack[i-1].(*ast.CompositeLit); ok {
				return r.compositeUse(cl, p)
			}
		}
		return HandOff
	case *ast.CompositeLit:
		return r.compositeUse(p, child)
	case *ast.UnaryExpr:
		if p.Op == token.AND {
			return HandOff
		}
		return Borrow
	case *ast.RangeStmt:
		// for _, c := range conns { c.Close() }
		if p.X == child && p.Value != nil {
			if id, ok := p.Value.(*ast.Ident); ok && id.Name != "_" {
				if v := r.info.ObjectOf(id); v != nil && r.UseOf(p.Body, map[types.Object]bool{v: true}, generic) != Borrow {
					return Release
				}
			}
		}
		return Borrow
	case *ast.BinaryExpr, *ast.IfStmt, *ast.SwitchStmt, *ast.CaseClause, *ast.IndexExpr, *ast.IndexListExpr,
		*ast.StarExpr, *ast.IncDecStmt, *ast.ExprStmt, *ast.SliceExpr, *ast.DeferStmt:
		return Borrow
	case *ast.TypeAssertExpr:
		// x.(io.Closer) may lead to a release; x.(io.WriterTo) does not.
		if p.Type == nil {
			return Borrow // a type switch
		}
		if r.hasReleaseMethod(r.info.TypeOf(p.Type)) {
			return HandOff
		}
		return Borrow
	}
	return HandOff
}

// argUse says what passing the lease as argument ai of call does with it.
func (r *Result) argUse(call *ast.CallExpr, ai int) Use {
	fun := ast.Unparen(call.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			if b.Name() == "append" && ai > 0 {
				return HandOff
			}
			return Borrow
		}
	}
	if tv, ok := r.info.Types[fun]; ok && tv.IsType() {
		return HandOff // a conversion: the converted value may be kept
	}
	if lit, ok := fun.(*ast.FuncLit); ok {
		// func(body io.ReadCloser) { ... }(resp.Body), deferred or not:
		// what the literal's body does with its parameter.
		if p := litParam(r.info, lit, ai); p != nil {
			return r.UseOf(lit.Body, r.Aliases(lit.Body, map[types.Object]bool{p: true}, nil), generic)
		}
		return Borrow
	}
	var fn *types.Func
	switch f := fun.(type) {
	case *ast.Ident:
		fn, _ = r.info.Uses[f].(*types.Func)
	case *ast.SelectorExpr:
		fn, _ = r.info.Uses[f.Sel].(*types.Func)
	case *ast.IndexExpr:
		fn = funcOfExpr(r.info, f.X)
	case *ast.IndexListExpr:
		fn = funcOfExpr(r.info, f.X)
	}
	if fn == nil {
		// A function value: we cannot see what it does, but it can only
		// release what its parameter type lets it release.
		sig, _ := r.info.TypeOf(call.Fun).Underlying().(*types.Signature)
		return r.dynamicUse(sig, ai)
	}
	if analysisutil.FormatsOperands(fn) {
		return Borrow // fmt.Print(resp): formatted, not kept
	}
	sig := fn.Type().(*types.Signature)
	if recv := sig.Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return r.dynamicUse(sig, ai) // dynamic dispatch
	}
	n := sig.Params().Len()
	pi := ai
	if sig.Variadic() && pi >= n-1 {
		pi = n - 1
	}
	if pi >= n {
		return Borrow
	}
	if r.Consumes(fn, pi) {
		return Release
	}
	return Borrow
}

// dynamicUse says what passing a lease as argument ai to an unknown
// function of signature sig does: it may keep or release it when the
// parameter's type offers a release method (io.Closer, io.ReadCloser), is a
// function (a cancel function), or is empty (any); an io.Reader parameter
// only borrows.
func (r *Result) dynamicUse(sig *types.Signature, ai int) Use {
	if sig == nil {
		return HandOff
	}
	n := sig.Params().Len()
	pi := ai
	if sig.Variadic() && pi >= n-1 {
		pi = n - 1
	}
	if pi >= n || pi < 0 {
		return HandOff
	}
	t := sig.Params().At(pi).Type()
	if sig.Variadic() && pi == n-1 {
		if s, ok := t.(*types.Slice); ok {
			t = s.Elem()
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Signature, *types.Pointer, *types.Struct, *types.Chan, *types.Map, *types.Slice:
		return HandOff
	case *types.Interface:
		if u.NumMethods() == 0 || r.hasReleaseMethod(t) {
			return HandOff
		}
		return Borrow
	}
	return HandOff
}

func funcOfExpr(info *types.Info, e ast.Expr) *types.Func {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[e].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		fn, _ := info.Uses[e.Sel].(*types.Func)
		return fn
	}
	return nil
}

// compositeUse says what putting the lease in composite literal cl as elem
// does with it: a slice or map holds it for someone (hand-off); a struct
// holds it only if the struct releases it.
func (r *Result) compositeUse(cl *ast.CompositeLit, elem ast.Node) Use {
	t := r.info.TypeOf(cl)
	if t == nil {
		return HandOff
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return HandOff
	}
	var field *types.Var
	if kv, ok := elem.(*ast.KeyValueExpr); ok {
		if id, ok := kv.Key.(*ast.Ident); ok {
			field, _ = r.info.Uses[id].(*types.Var)
		}
	} else {
		for j, e := range cl.Elts {
			if e == elem && j < st.NumFields() {
				field = st.Field(j)
			}
		}
	}
	if r.typeReleases(t, field) {
		return HandOff
	}
	return Borrow
}

// ownerReleases reports whether storing a lease into the field selected by
// sel hands it to an owner that releases it.
func (r *Result) ownerReleases(sel *ast.SelectorExpr) bool {
	s := r.info.Selections[sel]
	if s == nil {
		return true // a package-qualified variable: a global
	}
	field, _ := s.Obj().(*types.Var)
	return r.typeReleases(s.Recv(), field)
}

// typeReleases reports whether values of type t release what is stored in
// field: the type has a release method, or the field is released somewhere
// in this package, or the type is declared elsewhere and we cannot tell.
func (r *Result) typeReleases(t types.Type, field *types.Var) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return true // an anonymous struct: be quiet
	}
	if r.hasReleaseMethod(types.NewPointer(named)) {
		return true
	}
	if field != nil && (r.releasedFields[field] || field.Exported()) {
		return true // released here, or maybe by importers of the package
	}
	pkg := named.Obj().Pkg()
	if pkg == nil || pkg != r.pkg {
		// Declared elsewhere with no release method: the field is
		// released (if at all) by code of that package we cannot see
		// here; be quiet unless it is standard library.
		return !isStd(pkg)
	}
	return false
}

// hasReleaseMethod reports whether t (or *t) has a release-named method.
func (r *Result) hasReleaseMethod(t types.Type) bool {
	if t == nil {
		return true
	}
	if !types.IsInterface(t) {
		if _, isPtr := t.Underlying().(*types.Pointer); !isPtr {
			t = types.NewPointer(t)
		}
	}
	ms := r.msets.MethodSet(t)
	for i := range ms.Len() {
		if slices.Contains(genericRelease, ms.At(i).Obj().Name()) {
			return true
		}
	}
	return false
}

func isStd(pkg *types.Package) bool {
	if pkg == nil {
		return true
	}
	path := pkg.Path()
	for i := range len(path) {
		if path[i] == '.' {
			return false
		}
		if path[i] == '/' {
			break
		}
	}
	return true
}

// litParam returns the parameter of the function literal lit that receives
// argument ai, or nil when it is unnamed or blank (the literal cannot use
// it).
func litParam(info *types.Info, lit *ast.FuncLit, ai int) types.Object {
	var names []*ast.Ident
	for _, f := range lit.Type.Params.List {
		if len(f.Names) == 0 {
			names = append(names, nil)
		}
		names = append(names, f.Names...)
	}
	if len(names) == 0 {
		return nil
	}
	if ai >= len(names) {
		ai = len(names) - 1 // variadic
	}
	if id := names[ai]; id != nil && id.Name != "_" {
		return info.Defs[id]
	}
	return nil
}

// deadLiteral reports whether n assigns only function literals, all to the
// blank identifier: code that can never run.
func deadLiteral(n ast.Node) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if _, lit := ast.Unparen(as.Rhs[i]).(*ast.FuncLit); !ok || id.Name != "_" || !lit {
			return false
		}
	}
	return true
}

// resultDropped reports whether the call ending stack is a statement of its
// own or assigned only to blank identifiers: its results are dropped.
func resultDropped(stack []ast.Node) bool {
	call := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ParenExpr:
			call = n
			continue
		case *ast.ExprStmt:
			return true
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 || ast.Unparen(n.Rhs[0]) != ast.Unparen(call.(ast.Expr)) {
				return false
			}
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
					return false
				}
			}
			return true
		}
		return false
	}
	return false
}

// resultInPackageVar reports whether the call ending stack has its result
// assigned to a package-level variable, or to a field or element reached
// from one.
func (r *Result) resultInPackageVar(stack []ast.Node) bool {
	call := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ParenExpr:
			call = n
			continue
		case *ast.AssignStmt:
			for j, rv := range n.Rhs {
				if ast.Unparen(rv) != ast.Unparen(call.(ast.Expr)) {
					continue
				}
				lhs := n.Lhs
				if len(n.Lhs) == len(n.Rhs) {
					lhs = n.Lhs[j : j+1]
				}
				for _, l := range lhs {
					if r.packageRooted(l) {
						return true
					}
				}
			}
		}
		return false
	}
	return false
}

// packageRooted reports whether e is a package-level variable, or a field,
// element or dereference of one (opts.logger, loggers[name]).
func (r *Result) packageRooted(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, ok := r.info.ObjectOf(x).(*types.Var)
			return ok && !v.IsField() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
		case *ast.SelectorExpr:
			if s := r.info.Selections[x]; s == nil {
				// pkg.Var
				v, ok := r.info.ObjectOf(x.Sel).(*types.Var)
				return ok && !v.IsField() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
			} else if s.Kind() != types.FieldVal {
				return false
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
}

// LentOnly reports whether root hands the lease on only as a direct
// argument of calls whose callee cannot be seen (a function value, an
// interface method), which may keep it or may only look at it. A caller
// that goes on to release the lease itself after such a call shows that it
// kept ownership: the callee only borrowed it.
func (r *Result) LentOnly(root ast.Node, objs map[types.Object]bool, k *Kind) bool {
	lent, other := false, false
	var stack []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if other || deadLiteral(n) {
			return false
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || !objs[r.info.Uses[id]] || r.classify(stack, k, objs) != HandOff {
			return true
		}
		if len(stack) >= 2 {
			if call, ok := stack[len(stack)-2].(*ast.CallExpr); ok && slices.Contains(call.Args, ast.Expr(id)) && r.unseenCallee(call) {
				lent = true
				return true
			}
		}
		other = true
		return false
	})
	return lent && !other
}

// unseenCallee reports whether call's callee is a function value or an
// interface method.
func (r *Result) unseenCallee(call *ast.CallExpr) bool {
	fun := ast.Unparen(call.Fun)
	if tv, ok := r.info.Types[fun]; ok && tv.IsType() {
		return false
	}
	var fn *types.Func
	switch f := fun.(type) {
	case *ast.Ident:
		if _, ok := r.info.Uses[f].(*types.Builtin); ok {
			return false
		}
		fn, _ = r.info.Uses[f].(*types.Func)
	case *ast.SelectorExpr:
		fn, _ = r.info.Uses[f.Sel].(*types.Func)
	case *ast.FuncLit:
		return false
	}
	if fn == nil {
		return true
	}
	recv := fn.Type().(*types.Signature).Recv()
	return recv != nil && types.IsInterface(recv.Type())
}
