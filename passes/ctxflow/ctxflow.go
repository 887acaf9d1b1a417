package ctxflow

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

//go:embed doc.go
var doc string

// Analyzer computes the cancellation flow of a package. Its result is a
// *Result; it exports CarriesCancel facts.
var Analyzer = &analysis.Analyzer{
	Name:       "ctxflow",
	Doc:        analysisutil.MustExtractDoc(doc, "ctxflow"),
	URL:        "https://github.com/cancelcheck/cancelcheck/tree/main/passes/ctxflow",
	Requires:   []*analysis.Analyzer{inspect.Analyzer, flow.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	FactTypes:  []analysis.Fact{(*CarriesCancel)(nil), (*NoCancel)(nil), (*FreshErrors)(nil), (*ChecksContext)(nil), (*Sleeps)(nil), (*MakesRoot)(nil), (*RetriesCallback)(nil), (*ReturnsRoot)(nil), (*StoresContext)(nil), (*ReturnsCtxErr)(nil), (*ClassifiesCancel)(nil), (*NilErrors)(nil), (*AddsValues)(nil), (*IdentityFree)(nil), (*Detaches)(nil), (*DropsCancel)(nil)},
	Run:        run,
}

// Func describes one function of the package: a declaration or a literal
// with a body.
type Func struct {
	Node   ast.Node // *ast.FuncDecl or *ast.FuncLit
	Type   *ast.FuncType
	Body   *ast.BlockStmt
	Sig    *types.Signature
	Obj    *types.Func // nil for literals
	Parent *Func       // the enclosing function of a literal, or nil

	// Contexts are the contexts in reach inside the function, nearest first:
	// its own parameters, then its receiver's context fields, then those of
	// enclosing functions.
	Contexts []Context
}

// Name returns the function's name for messages: "Load", "(*Store).Load",
// or "func literal".
func (f *Func) Name() string {
	if f.Obj == nil {
		return "function literal"
	}
	return f.Obj.Name()
}

// HasContext reports whether a context is in reach in f.
func (f *Func) HasContext() bool { return len(f.Contexts) > 0 }

// ContextKind says how a context is reached.
type ContextKind int

const (
	ParamContext   ContextKind = iota // a context.Context parameter
	RequestContext                    // r.Context() of an *http.Request parameter
	FieldContext                      // a context.Context field of the receiver
)

// Context is a context in reach of a function.
type Context struct {
	Kind ContextKind
	Obj  types.Object // the parameter, request parameter, or receiver
	// Field is the receiver field for FieldContext.
	Field *types.Var
	// Expr is Go source that evaluates to the context inside the function,
	// e.g. "ctx", "r.Context()" or "s.ctx".
	Expr string
	// Outer is true when the context belongs to an enclosing function.
	Outer bool
}

// Result is the cancellation flow of one package.
type Result struct {
	// Funcs lists the package's functions with bodies, in source order.
	Funcs []*Func
	// ImportsContext reports whether any file imports "context" or
	// "net/http"; checks may bail out early when it is false.
	ImportsContext bool

	byNode  map[ast.Node]*Func
	byObj   map[*types.Func]*Func
	info    *types.Info
	assigns map[types.Object][]assign
	pass    *analysis.Pass
	local   map[*types.Func]bool // functions of this package that carry cancellation
	// nilFields are the context fields the package sets to nil or tests
	// against nil: not a context a function can count on (nilfields.go).
	nilFields map[*types.Var]bool
	// localLits are the literals called where they are written
	// (`err := func() error { ... }()`) whose returns may carry
	// cancellation: their calls are context-bound.
	localLits map[ast.Node]bool
	// ctxAssigns lists the values assigned to local context variables (nil
	// for a result of a tuple-valued call other than the first).
	ctxAssigns map[types.Object][]ast.Expr
	// valuesOnly holds the functions of this package that take a context
	// but use it only for values (see NoCancel).
	valuesOnly map[*types.Func]bool
	// fresh holds the functions of this package whose returned errors are
	// all fresh (see FreshErrors).
	fresh map[*types.Func]bool
	// idFree holds the functions of this package whose returned errors are
	// all identity-free (see IdentityFree).
	idFree map[*types.Func]bool
	// idFreeIfaces holds the interface methods of this package whose every
	// implementation here is identity-free.
	idFreeIfaces map[*types.Func]bool
	// detaching holds the functions of this package with the Detaches fact.
	detaching map[*types.Func]bool
	// droppers holds the functions of this package with the DropsCancel
	// fact.
	droppers map[*types.Func]bool
	// ifaceImpls: the implementations of the package's interface methods
	// by its concrete types (interfaceImpls), computed once in run.
	ifaceImpls map[*types.Func][]*types.Func
	// graphs are the package's control-flow graphs; nilAtReturn the
	// returned error variables that are nil at their return
	// (collectErrReturns).
	graphs *flow.Result
	// ifaces holds the method names of the package's interface types
	// (interfaceMethod), computed once: the checks sharing this result may
	// ask at once.
	ifaces      *nameTable
	nilAtReturn map[ast.Expr]bool
	// nilErrs are the package's functions whose errors are always nil
	// (see NilErrors).
	nilErrs map[*types.Func]bool
	// errReturns lists, per declared function with an error result, the
	// error expressions its returns give (collectErrReturns).
	errReturns map[*Func][]ast.Expr
	// holderAssigns lists the values assigned to local variables whose
	// type holds a context (*exec.Cmd, *sql.Tx, a struct with a context
	// field; not requests, which have reqAssigns): nil for a value it cannot
	// see (a result of a tuple-valued call other than the first, a zero
	// value).
	holderAssigns map[types.Object][]ast.Expr
	// ctxErrFuncs holds the package's functions whose error is a context
	// parameter's Err (see ReturnsCtxErr).
	ctxErrFuncs map[*types.Func]*ReturnsCtxErr
	// classifiers holds the package's predicates of an error with a
	// verdict on a cancellation (see ClassifiesCancel).
	classifiers map[*types.Func]*ClassifiesCancel
	// groupAssigns lists the constructor calls assigned to local group
	// variables (*errgroup.Group, *scope.Scope); nil for any other value.
	groupAssigns map[types.Object][]*ast.CallExpr
	// reqAssigns lists the values assigned to local *http.Request
	// variables (the call, for a tuple assignment); nil for a value it
	// cannot see (a parameter's, a zero value).
	reqAssigns map[types.Object][]ast.Expr
	// doneAssigns lists the values assigned to local variables of type
	// <-chan struct{} (done := ctx.Done()), for DoneContext.
	doneAssigns map[types.Object][]ast.Expr
	// checks holds the functions of this package that check a context
	// parameter (see ChecksContext); sleepers its context-less sleep
	// helpers (see Sleeps).
	checks   map[*types.Func]bool
	sleepers map[*types.Func]bool
	// retriers are the package's functions with the RetriesCallback fact,
	// with the index of the callback they retry.
	retriers map[*types.Func]int
	// roots holds the functions of this package that run work under a
	// root context of their own (see MakesRoot).
	roots map[*types.Func]*MakesRoot
	// calls indexes the package's static calls, built on first use
	// (CallsOf).
	calls *callIndex
	// rootCtxs holds the functions of this package that return a root
	// context (see ReturnsRoot).
	rootCtxs map[*types.Func]bool
	// valueCtxs maps the functions of this package whose context result
	// is their context parameter with values added to that parameter's
	// index (see AddsValues).
	valueCtxs map[*types.Func]int
	// mainLike holds the functions whose return ends the process, built
	// on first use (MainLike).
	mainLike map[*types.Func]bool
	// storers holds the functions of this package that only store their
	// context parameters (see StoresContext).
	storers map[*types.Func]bool
	// params maps the parameters of declared functions to their function
	// and index, built on first use (ParamOf).
	params map[*types.Var]paramRef
	ins    *inspector.Inspector
	// The analyzers that share this result run in parallel: each lazy
	// index is built once, under its own Once.
	callsOnce, paramsOnce, mainOnce sync.Once
	// litCalls maps the parameters of function literals passed directly
	// as arguments to the call they are passed to (callOfLitParam).
	litCalls     map[*types.Var]*ast.CallExpr
	litCallsOnce sync.Once
}

// assign is one assignment to an error variable.
type assign struct {
	pos     token.Pos
	scope   ast.Node // innermost block or clause holding the assignment
	rhs     ast.Expr // nil when the value is a result of a tuple-valued call
	call    *ast.CallExpr
	idx     int // result index within call, for tuple assignments
	carrier bool
	// iter is the call that made the function iterator a range statement
	// assigns from.
	iter *ast.CallExpr
	// ret marks a return statement's value for a named error result: the
	// value a deferred literal sees, and nothing else does (control leaves
	// the function there).
	ret bool
	// param marks the value a static call of the package passes for an
	// error parameter (rhs is the argument, in the caller): the parameter
	// may hold any of them where no assignment of the body dominates.
	param bool
}

// FuncOf returns the Func for a *ast.FuncDecl or *ast.FuncLit, or nil.
func (r *Result) FuncOf(n ast.Node) *Func { return r.byNode[n] }

// DeclOf returns the Func of a function or method declared in this package
// (the generic origin of an instance), or nil.
func (r *Result) DeclOf(fn *types.Func) *Func {
	if fn == nil {
		return nil
	}
	return r.byObj[fn.Origin()]
}

// Enclosing returns the innermost function that contains the cursor's node.
func (r *Result) Enclosing(c inspector.Cursor) *Func {
	for e := range c.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		if f := r.byNode[e.Node()]; f != nil {
			return f
		}
	}
	return nil
}

// EnclosingPos returns the innermost function whose body contains pos.
func (r *Result) EnclosingPos(pos token.Pos) *Func {
	var best *Func
	for _, f := range r.Funcs {
		if f.Body.Pos() <= pos && pos < f.Body.End() {
			if best == nil || f.Body.Pos() >= best.Body.Pos() {
				best = f
			}
		}
	}
	return best
}

func run(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	r := &Result{
		ifaces:  new(nameTable),
		graphs:  pass.ResultOf[flow.Analyzer].(*flow.Result),
		byNode:  make(map[ast.Node]*Func),
		byObj:   make(map[*types.Func]*Func),
		info:    pass.TypesInfo,
		assigns: make(map[types.Object][]assign),
		pass:    pass,
		local:   make(map[*types.Func]bool),

		localLits: make(map[ast.Node]bool),

		ctxAssigns:    make(map[types.Object][]ast.Expr),
		holderAssigns: make(map[types.Object][]ast.Expr),
		ctxErrFuncs:   make(map[*types.Func]*ReturnsCtxErr),

		groupAssigns: make(map[types.Object][]*ast.CallExpr),
		reqAssigns:   make(map[types.Object][]ast.Expr),
		doneAssigns:  make(map[types.Object][]ast.Expr),

		checks:   make(map[*types.Func]bool),
		sleepers: make(map[*types.Func]bool),
		retriers: make(map[*types.Func]int),
		roots:    make(map[*types.Func]*MakesRoot),
		rootCtxs: make(map[*types.Func]bool),
		storers:  make(map[*types.Func]bool),
		droppers: make(map[*types.Func]bool),
		ins:      ins,
	}
	r.ImportsContext = analysisutil.Imports(pass.Pkg, "context") || analysisutil.Imports(pass.Pkg, "net/http")

	if analysisutil.Reaches(pass.Pkg, "context") {
		r.nilFields = nilContextFields(pass.TypesInfo, ins)
	}
	var returns []*returnSite
	var stack []*Func
	invoked := make(map[ast.Node]bool) // literals called where they are written
	filter := []ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}
	// Every source of cancellation (a context, a request, a group, a
	// function with the CarriesCancel fact) needs package context: without
	// it in reach (runtime, most of the low-level standard library) no
	// value carries cancellation, and only the functions are needed.
	if analysisutil.Reaches(pass.Pkg, "context") {
		filter = append(filter, (*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.ReturnStmt)(nil), (*ast.RangeStmt)(nil))
	}
	for c := range ins.Root().Preorder(filter...) {
		n := c.Node()
		for len(stack) > 0 && n.Pos() >= stack[len(stack)-1].Node.End() {
			stack = stack[:len(stack)-1]
		}
		var parent *Func
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body == nil {
				continue
			}
			obj, _ := pass.TypesInfo.Defs[n.Name].(*types.Func)
			if obj == nil {
				continue
			}
			f := &Func{Node: n, Type: n.Type, Body: n.Body, Obj: obj, Sig: obj.Type().(*types.Signature)}
			r.addFunc(f, n.Recv)
			stack = append(stack, f)
		case *ast.FuncLit:
			sig, _ := pass.TypesInfo.TypeOf(n).(*types.Signature)
			if sig == nil {
				continue
			}
			f := &Func{Node: n, Type: n.Type, Body: n.Body, Sig: sig, Parent: parent}
			r.addFunc(f, nil)
			stack = append(stack, f)
			if call, ok := c.Parent().Node().(*ast.CallExpr); ok && ast.Unparen(call.Fun) == n {
				invoked[n] = true // err := func() error { ... }()
			}
		case *ast.AssignStmt:
			r.recordAssign(c, n.Lhs, n.Rhs, n.Tok == token.DEFINE)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, id := range n.Names {
				lhs[i] = id
			}
			r.recordAssign(c, lhs, n.Values, true)
		case *ast.RangeStmt:
			r.recordRange(n)
		case *ast.ReturnStmt:
			if parent != nil && (parent.Obj != nil || invoked[parent.Node]) {
				returns = append(returns, &returnSite{fn: parent, ret: n, cur: c})
			}
			if parent != nil {
				r.recordReturn(parent, n)
			}
		}
	}
	if analysisutil.Reaches(pass.Pkg, "context") {
		r.recordParams()
	}
	for _, list := range r.assigns {
		sort.Slice(list, func(i, j int) bool { return list[i].pos < list[j].pos })
	}
	r.valuesOnly = r.valuesOnlyFuncs(r.Funcs)
	r.fresh = r.freshFuncs(r.Funcs)
	r.freshInterfaceMethods(r.fresh)
	for fn := range r.fresh {
		analysisutil.ExportFuncFact(pass, fn, new(FreshErrors))
	}
	r.idFree = r.identityFreeFuncs(r.Funcs)
	r.freshInterfaceMethods(r.idFree)
	for fn := range r.idFree {
		if !r.fresh[fn] { // fresh errors are identity-free already
			analysisutil.ExportFuncFact(pass, fn, new(IdentityFree))
		}
	}
	r.detaching = r.detachingFuncs(r.Funcs)
	for fn := range r.detaching {
		analysisutil.ExportFuncFact(pass, fn, new(Detaches))
	}
	r.nilErrs = r.nilErrorFuncs(r.Funcs)
	for fn := range r.nilErrs {
		analysisutil.ExportFuncFact(pass, fn, new(NilErrors))
	}

	// Fixed point: a variable is a carrier when an assignment to it is; a
	// function carries cancellation when a return returns a carrier. Each
	// round can only add, so this terminates.
	for changed := true; changed; {
		changed = false
		for _, list := range r.assigns {
			for i := range list {
				a := &list[i]
				if !a.carrier && r.assignCarries(a) {
					a.carrier = true
					changed = true
				}
			}
		}
		for _, rs := range returns {
			if rs.fn.Obj == nil {
				// A literal called where it is written: its call is
				// context-bound when one of its returns carries.
				if r.localLits[rs.fn.Node] || !receivesCancel(rs.fn) || !rs.carries(r) {
					continue
				}
				r.localLits[rs.fn.Node] = true
				changed = true
				continue
			}
			if r.local[rs.fn.Obj] || !receivesCancel(rs.fn) || !rs.carries(r) {
				continue
			}
			r.local[rs.fn.Obj] = true
			changed = true
		}
		// An interface method stands for its implementations: one that
		// carries cancellation makes it carry (and not values-only).
		for m, impls := range r.ifaceImpls {
			if r.local[m] {
				continue
			}
			for _, impl := range impls {
				if r.local[impl] {
					r.local[m] = true
					changed = true
					break
				}
			}
		}
	}
	for fn := range r.local {
		// Functions taking a context are context-bound at every call site;
		// the fact is for those that reach cancellation another way.
		if !analysisutil.TakesContext(fn.Type().(*types.Signature)) {
			analysisutil.ExportFuncFact(pass, fn, new(CarriesCancel))
		}
	}
	for fn := range r.valuesOnly {
		if !r.local[fn] {
			analysisutil.ExportFuncFact(pass, fn, new(NoCancel))
		}
	}
	if analysisutil.Imports(pass.Pkg, "time") {
		// Backoff helpers live in packages that need not import context.
		r.computeSleepers(pass)
		r.computeRetriers(pass)
	}
	if r.ImportsContext {
		rets := make(map[*Func][]*ast.ReturnStmt)
		for _, rs := range returns {
			if rs.fn.Obj != nil {
				rets[rs.fn] = append(rets[rs.fn], rs.ret)
			}
		}
		r.computeCtxErrFuncs(pass, rets)
		r.computeCheckers(pass)
	}
	r.computeClassifiers(pass)
	r.computeRoots(pass)
	r.computeValueContexts(pass)
	r.computeRootContexts(pass)
	r.computeStorers(pass)
	r.computeDroppers(pass)
	return r, nil
}

// receivesCancel reports whether a caller's cancellation can reach f's
// errors: f takes a context or request, its receiver holds a context, or a
// parameter can bring one in (a function value that may capture the
// caller's context, an interface or a struct with a context field or a
// Context method). A function with none of these runs only under contexts
// it makes itself: its errors may carry its own timeouts, which are
// failures like any other, never the caller's cancellation, so it does not
// carry cancellation to its callers.
func receivesCancel(f *Func) bool {
	if f.HasContext() || analysisutil.TakesContext(f.Sig) {
		return true
	}
	params := f.Sig.Params()
	for i := range params.Len() {
		if mayBringContext(params.At(i).Type()) {
			return true
		}
	}
	if rv := f.Sig.Recv(); rv != nil && hasContextInside(rv.Type()) {
		return true
	}
	return false
}

// mayBringContext reports whether a value of type t can carry a context
// into the function it is passed to.
func mayBringContext(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Signature:
		return true
	case *types.Interface:
		return !analysisutil.IsError(t) && u.NumMethods() > 0
	case *types.Slice:
		return mayBringContext(u.Elem())
	}
	return hasContextInside(t)
}

// hasContextInside reports whether t (or what it points to) is a struct
// with a context.Context or *http.Request field, or a type with a
// Context() method.
func hasContextInside(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, "Context"); obj != nil {
		if fn, ok := obj.(*types.Func); ok {
			if sig := fn.Type().(*types.Signature); sig.Params().Len() == 0 && sig.Results().Len() == 1 && analysisutil.IsContext(sig.Results().At(0).Type()) {
				return true
			}
		}
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		ft := st.Field(i).Type()
		if analysisutil.IsContext(ft) || analysisutil.IsHTTPRequest(ft) {
			return true
		}
	}
	return false
}

type returnSite struct {
	fn  *Func
	ret *ast.ReturnStmt
	cur inspector.Cursor
}

func (rs *returnSite) carries(r *Result) bool {
	idx := analysisutil.ErrorResult(rs.fn.Sig)
	if idx < 0 {
		return false
	}
	res := rs.ret.Results
	switch {
	case len(res) == rs.fn.Sig.Results().Len():
		return r.MayCarryCancel(res[idx])
	case len(res) == 1:
		if call, ok := ast.Unparen(res[0]).(*ast.CallExpr); ok {
			return r.callCarries(call, idx)
		}
	case len(res) == 0:
		// Bare return of named results.
		if v := rs.fn.Sig.Results().At(idx); v.Name() != "" {
			return r.varCarriesAt(v, rs.ret.Pos())
		}
	}
	return false
}

func (r *Result) addFunc(f *Func, recv *ast.FieldList) {
	r.Funcs = append(r.Funcs, f)
	r.byNode[f.Node] = f
	if f.Obj != nil {
		r.byObj[f.Obj] = f
	}
	params := f.Sig.Params()
	for i := range params.Len() {
		p := params.At(i)
		switch {
		case p.Name() == "" || p.Name() == "_":
		case analysisutil.IsContext(p.Type()):
			f.Contexts = append(f.Contexts, Context{Kind: ParamContext, Obj: p, Expr: p.Name()})
		case analysisutil.IsHTTPRequest(p.Type()):
			f.Contexts = append(f.Contexts, Context{Kind: RequestContext, Obj: p, Expr: p.Name() + ".Context()"})
		}
	}
	if rv := f.Sig.Recv(); rv != nil && rv.Name() != "" && rv.Name() != "_" {
		t := rv.Type()
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		if st, ok := t.Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				fld := st.Field(i)
				if analysisutil.IsContext(fld.Type()) && fld.Name() != "_" && !r.nilFields[fld] {
					f.Contexts = append(f.Contexts, Context{Kind: FieldContext, Obj: rv, Field: fld, Expr: rv.Name() + "." + fld.Name()})
				}
			}
		}
	}
	if f.Parent != nil {
		for _, c := range f.Parent.Contexts {
			if f.shadows(c.Obj.Name()) {
				continue
			}
			c.Outer = true
			f.Contexts = append(f.Contexts, c)
		}
	}
}

// shadows reports whether f declares a parameter or result named name.
func (f *Func) shadows(name string) bool {
	for _, tuple := range []*types.Tuple{f.Sig.Params(), f.Sig.Results()} {
		for i := range tuple.Len() {
			if tuple.At(i).Name() == name {
				return true
			}
		}
	}
	return false
}

func (r *Result) recordAssign(c inspector.Cursor, lhs, rhs []ast.Expr, _ bool) {
	scope := innermostScope(c)
	tuple := len(rhs) == 1 && len(lhs) > 1
	for i, l := range lhs {
		id, ok := ast.Unparen(l).(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		obj := r.info.ObjectOf(id)
		v, ok := obj.(*types.Var)
		if ok && isGroup(v.Type()) {
			var ctor *ast.CallExpr
			if tuple && i == 0 {
				ctor, _ = ast.Unparen(rhs[0]).(*ast.CallExpr)
			}
			r.groupAssigns[v] = append(r.groupAssigns[v], ctor)
			continue
		}
		// The value v receives: the call, for the first result of a tuple
		// (a context constructor, http.NewRequest); nil for another result
		// or the zero value.
		var val ast.Expr
		switch {
		case tuple && i == 0:
			val = rhs[0]
		case !tuple && i < len(rhs):
			val = rhs[i]
		}
		if ok && analysisutil.IsHTTPRequest(v.Type()) {
			r.reqAssigns[v] = append(r.reqAssigns[v], val)
			continue
		}
		if ok && analysisutil.IsContext(v.Type()) {
			r.ctxAssigns[v] = append(r.ctxAssigns[v], val)
			continue
		}
		if ok && isDoneChan(v.Type()) {
			r.doneAssigns[v] = append(r.doneAssigns[v], val)
			continue
		}
		if ok && hasContextInside(v.Type()) {
			r.holderAssigns[v] = append(r.holderAssigns[v], val)
			continue
		}
		if !ok || !analysisutil.IsError(v.Type()) {
			continue
		}
		// The assignment takes effect after its right-hand side: uses of the
		// variable inside it (err = wrap(err)) see the previous value.
		a := assign{pos: c.Node().End(), scope: scope}
		switch {
		case tuple:
			call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
			if !ok {
				continue // v, ok := m[k] and friends: not carriers
			}
			a.call, a.idx = call, i
		case i < len(rhs):
			a.rhs = rhs[i]
		default:
			// var err error: the zero value.
		}
		r.assigns[v] = append(r.assigns[v], a)
	}
}

// recordRange records the error-typed iteration variables of a range over
// a function iterator (`for v, err := range walk(ctx, root)`): each is
// assigned the value the iterator yields, which may carry cancellation
// when the call that made the iterator is context-bound, as a call's error
// result does.
func (r *Result) recordRange(n *ast.RangeStmt) {
	call, ok := ast.Unparen(n.X).(*ast.CallExpr)
	if !ok || n.Tok == token.ILLEGAL {
		return
	}
	if _, ok := r.info.TypeOf(n.X).Underlying().(*types.Signature); !ok {
		return // ranges over a slice, map or channel a call returned
	}
	for _, l := range []ast.Expr{n.Key, n.Value} {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		v, ok := r.info.ObjectOf(id).(*types.Var)
		if !ok || !analysisutil.IsError(v.Type()) {
			continue
		}
		r.assigns[v] = append(r.assigns[v], assign{pos: n.X.End(), scope: n, iter: call})
	}
}

// recordReturn records the error value ret gives f's named error result,
// for the deferred literals that read it after the return.
func (r *Result) recordReturn(f *Func, ret *ast.ReturnStmt) {
	idx := analysisutil.ErrorResult(f.Sig)
	if idx < 0 {
		return
	}
	v := f.Sig.Results().At(idx)
	if v.Name() == "" || v.Name() == "_" {
		return
	}
	a := assign{pos: ret.End(), ret: true}
	switch n := len(ret.Results); {
	case n == f.Sig.Results().Len():
		a.rhs = ret.Results[idx]
		if id, ok := ast.Unparen(a.rhs).(*ast.Ident); ok && r.info.Uses[id] == v {
			return // return err: the value it already holds
		}
	case n == 1:
		call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
		if !ok {
			return
		}
		a.call, a.idx = call, idx
	default:
		return // a bare return keeps the value assigned before
	}
	r.assigns[v] = append(r.assigns[v], a)
}

// innermostScope returns the innermost block-like node enclosing c.
func innermostScope(c inspector.Cursor) ast.Node {
	for e := range c.Enclosing((*ast.BlockStmt)(nil), (*ast.CaseClause)(nil), (*ast.CommClause)(nil)) {
		if e.Node() != c.Node() {
			return e.Node()
		}
	}
	return nil
}

func (r *Result) assignCarries(a *assign) bool {
	if a.iter != nil {
		return r.boundCall(a.iter) && !r.detachedCall(a.iter)
	}
	if a.call != nil {
		return r.callCarries(a.call, a.idx)
	}
	return a.rhs != nil && r.MayCarryCancel(a.rhs)
}

// callCarries reports whether result idx of call may carry cancellation.
func (r *Result) callCarries(call *ast.CallExpr, idx int) bool {
	sig, _ := r.info.TypeOf(call.Fun).Underlying().(*types.Signature)
	if sig == nil || idx >= sig.Results().Len() || !analysisutil.IsError(sig.Results().At(idx).Type()) {
		return false
	}
	fn := analysisutil.Callee(r.info, call)
	if fn != nil && (r.fresh[fn.Origin()] || fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn.Origin(), new(FreshErrors))) {
		return false // its errors are made fresh: none is a context's
	}
	if r.NeverFails(call) {
		return false // its error is always nil
	}
	if fn != nil && (r.detaching[fn.Origin()] || fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn.Origin(), new(Detaches))) {
		return false // it runs its work under detached contexts only
	}
	if fn != nil && r.passedThrough(fn, call, idx) {
		return false
	}
	if r.deferredError(call) {
		return true
	}
	if !r.boundCall(call) || r.detachedCall(call) {
		return false
	}
	// nextModSeq(tx) for a tx made under context.TODO() (asked last: it
	// looks into the arguments' types).
	return fn == nil || !r.onlyDetachedHolders(fn, call)
}

// deferredError reports whether call is a method of a value that a
// context-bound call returned without an error of its own
// (`db.QueryRowContext(ctx, q).Scan(&v)`, or through a local assigned
// once from such a call): that call defers its failure, its context's end
// among them, into the value, and the method returns it.
func (r *Result) deferredError(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x := ast.Unparen(sel.X)
	if id, ok := x.(*ast.Ident); ok {
		// row := db.QueryRowContext(ctx, q): the local's defining
		// statement, when it is its only assignment.
		v, ok := r.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			return false
		}
		decl, lhs, rhs, _, ok := analysisutil.Declaration(r.ins, v)
		as, isAssign := decl.(*ast.AssignStmt)
		if !ok || !isAssign || len(lhs) != 1 || len(rhs) != 1 {
			return false
		}
		maker, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
		if !ok || !r.defersError(maker) {
			return false
		}
		// Asked last: it walks the function's body.
		fl := r.EnclosingPos(as.Pos())
		return fl != nil && !r.assignedAgain(fl.Body, v, as)
	}
	maker, ok := x.(*ast.CallExpr)
	return ok && r.defersError(maker)
}

// defersError reports whether maker is a context-bound call, not given
// only detached contexts, whose one result is not an error.
func (r *Result) defersError(maker *ast.CallExpr) bool {
	sig, _ := r.info.TypeOf(maker.Fun).Underlying().(*types.Signature)
	if sig == nil || !analysisutil.TakesContext(sig) || analysisutil.ErrorResult(sig) >= 0 || sig.Results().Len() != 1 {
		return false
	}
	return !r.detachedCall(maker)
}

// assignedAgain reports whether body assigns v other than in def.
func (r *Result) assignedAgain(body *ast.BlockStmt, v *types.Var, def *ast.AssignStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && as != def {
			for _, l := range as.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok && r.info.ObjectOf(id) == v {
					found = true
				}
			}
		}
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
			if id, ok := ast.Unparen(u.X).(*ast.Ident); ok && r.info.Uses[id] == v {
				found = true
			}
		}
		return !found
	})
	return found
}

// onlyDetachedHolders reports whether call gives fn, which takes no
// context or request of its own, its contexts only through arguments that
// hold detached ones (a transaction made under context.TODO()), and
// nothing else that could bring one (a function value, an interface, a
// receiver with a context inside).
func (r *Result) onlyDetachedHolders(fn *types.Func, call *ast.CallExpr) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || analysisutil.TakesContext(sig) {
		return false
	}
	if sig.Recv() != nil && mayBringContext(sig.Recv().Type()) {
		return false
	}
	holders := 0
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		switch {
		case analysisutil.IsHTTPRequest(t):
			return false
		case hasContextInside(t):
			if !r.holdsNoContext(arg, 0) {
				return false
			}
			holders++
		case mayBringContext(t):
			return false
		}
	}
	return holders > 0
}

// passedThrough reports whether result idx of call is of a type parameter
// of the generic fn (an error only by instantiation) and every function
// argument that could produce it is a literal doing no context-bound work:
// `Run[T1, T2](ctx, func() (int, error) { return r.Read(buf) })` hands
// back the literal's error, not a cancellation.
func (r *Result) passedThrough(fn *types.Func, call *ast.CallExpr, idx int) bool {
	sig, ok := fn.Origin().Type().(*types.Signature)
	if !ok || idx >= sig.Results().Len() {
		return false
	}
	if _, ok := sig.Results().At(idx).Type().(*types.TypeParam); !ok {
		return false
	}
	lits := 0
	for _, a := range call.Args {
		if _, isFunc := r.info.TypeOf(a).Underlying().(*types.Signature); !isFunc {
			continue
		}
		lits++
		lit, ok := ast.Unparen(a).(*ast.FuncLit)
		if !ok {
			return false // a function value: what it returns is unseen
		}
		bound := false
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && r.boundCall(c) {
				bound = true
			}
			return !bound
		})
		if bound {
			return false
		}
	}
	return lits > 0
}

// MayCarryCancel reports whether the error expression e may carry the
// cancellation of a context: context.Canceled or DeadlineExceeded, a cause,
// or something wrapping them.
func (r *Result) MayCarryCancel(e ast.Expr) bool {
	e = ast.Unparen(e)
	switch e := e.(type) {
	case *ast.Ident:
		if v, ok := r.info.ObjectOf(e).(*types.Var); ok {
			return r.varCarriesAt(v, e.Pos())
		}
	case *ast.SelectorExpr:
		if v, ok := r.info.ObjectOf(e.Sel).(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "context" &&
			(v.Name() == "Canceled" || v.Name() == "DeadlineExceeded") {
			return true
		}
	case *ast.CallExpr:
		fn := analysisutil.Callee(r.info, e)
		switch {
		case fn == nil:
		case analysisutil.IsMethod(fn, "context", "Context", "Err"),
			analysisutil.IsFunc(fn, "context", "Cause"):
			return true
		case analysisutil.IsFunc(fn, "fmt", "Errorf"):
			return r.errorfWraps(e)
		case analysisutil.IsFunc(fn, "errors", "Join"):
			for _, arg := range e.Args {
				if r.MayCarryCancel(arg) {
					return true
				}
			}
			return false
		case wrapper(fn):
			return len(e.Args) > 0 && r.MayCarryCancel(e.Args[0])
		}
		return r.callCarries(e, 0) && singleResult(r.info, e)
	}
	return false
}

func singleResult(info *types.Info, call *ast.CallExpr) bool {
	_, isTuple := info.TypeOf(call).(*types.Tuple)
	return !isTuple
}

// wrapper reports whether fn wraps its first argument, keeping it reachable
// through Unwrap (github.com/pkg/errors and friends).
func wrapper(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "github.com/pkg/errors":
		switch fn.Name() {
		case "Wrap", "Wrapf", "WithMessage", "WithMessagef", "WithStack":
			return true
		}
	case "github.com/cockroachdb/errors":
		switch fn.Name() {
		case "Wrap", "Wrapf", "WithMessage", "WithMessagef", "WithStack", "WithDetail":
			return true
		}
	}
	return false
}

// errorfWraps reports whether a fmt.Errorf call wraps (with %w) an argument
// that may carry cancellation.
func (r *Result) errorfWraps(call *ast.CallExpr) bool {
	verbs := WrapVerbs(r.info, call)
	for i, arg := range call.Args[1:] {
		if i < len(verbs) && verbs[i] == 'w' && r.MayCarryCancel(arg) {
			return true
		}
	}
	return false
}

// varCarriesAt reports whether the error variable v may hold cancellation at
// pos: the nearest preceding assignment carries, or one of the assignments
// since the last one that certainly executes on the way to pos. A use with
// no preceding assignment (in a closure declared before them, a deferred
// literal reading a named result) may see any of them, return statements'
// values for the named result included.
func (r *Result) varCarriesAt(v *types.Var, pos token.Pos) bool {
	list := r.assigns[v]
	i := sort.Search(len(list), func(i int) bool { return list[i].pos >= pos })
	if i == 0 {
		// No preceding assignment: a use in a closure declared before the
		// assignment, a loop-carried value, or a parameter. Any assignment
		// may have reached it.
		for _, a := range list {
			if a.carrier {
				return true
			}
		}
		return false
	}
	for j := i - 1; j >= 0; j-- {
		a := list[j]
		if a.ret {
			continue // control left the function there
		}
		if a.carrier {
			return true
		}
		if a.scope == nil || (a.scope.Pos() <= pos && pos < a.scope.End()) {
			return false // this assignment dominates pos (absent goto)
		}
	}
	return false
}

// BoundCall reports whether call is context-bound: it passes a context or an
// *http.Request, or calls a function with the CarriesCancel fact.
func (r *Result) BoundCall(call *ast.CallExpr) bool { return r.boundCall(call) }

func (r *Result) boundCall(call *ast.CallExpr) bool {
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok && r.localLits[lit] {
		return true
	}
	fn := analysisutil.Callee(r.info, call)
	if fn != nil && r.groupWait(fn, call) {
		return true
	}
	if fn != nil {
		if neverCarries(fn) || r.receiverHoldsNoContext(fn, call) {
			return false
		}
		if (r.valuesOnly[fn] && !r.local[fn]) || (fn.Pkg() != r.pass.Pkg && r.pass.ImportObjectFact(fn.Origin(), new(NoCancel))) {
			return false // it uses its context for values only
		}
		if r.local[fn] || r.pass.ImportObjectFact(fn.Origin(), new(CarriesCancel)) {
			return true
		}
	}
	ignores := fn != nil && ignoresContext(fn)
	for _, arg := range call.Args {
		t := r.info.TypeOf(arg)
		if analysisutil.IsContext(t) && !ignores || analysisutil.IsHTTPRequest(t) {
			return true
		}
	}
	return false
}

// ignoresContext reports whether fn, a concrete function or method (not an
// interface's: an implementation may use what the interface names `_`),
// takes a context only in parameters it leaves blank (`_ context.Context`
// or unnamed): it cannot observe the context it is given, so its error
// does not carry that context's cancellation. The names come with the
// signature, in this package and from export data alike.
func ignoresContext(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	if recv := sig.Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return false
	}
	ctxs := 0
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if !analysisutil.IsContext(p.Type()) {
			continue
		}
		if p.Name() != "" && p.Name() != "_" {
			return false
		}
		ctxs++
	}
	return ctxs > 0
}

// neverCarries lists functions that take a context but whose error can never
// be a cancellation: they only validate their arguments.
func neverCarries(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	if logHandler(fn) {
		return true
	}
	switch fn.Pkg().Path() {
	case "context":
		return true
	case "net/http":
		// NewRequestWithContext only validates; the methods of a request
		// (ParseForm, FormFile...) report malformed input.
		return fn.Name() == "NewRequestWithContext" || analysisutil.IsMethod(fn, "net/http", "Request", fn.Name())
	case "errors", "fmt":
		return true
	}
	return false
}

// logHandler reports whether fn takes a slog.Record: a log handler, whose
// context carries values for the record, not a cancellation to report.
func logHandler(fn *types.Func) bool {
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil {
		return false
	}
	for i := range sig.Params().Len() {
		if analysisutil.IsNamed(sig.Params().At(i).Type(), "log/slog", "Record") {
			return true
		}
	}
	return false
}

// ContextExprs returns the contexts in reach at f, nearest first.
func (f *Func) ContextExprs() []string {
	out := make([]string, len(f.Contexts))
	for i, c := range f.Contexts {
		out[i] = c.Expr
	}
	return out
}
