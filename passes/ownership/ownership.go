package ownership

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

//go:embed doc.go
var doc string

// Analyzer computes lease ownership for a package. Its result is a *Result;
// it exports Consumes and ReturnsLease facts.
var Analyzer = &analysis.Analyzer{
	Name:       "ownership",
	Doc:        analysisutil.MustExtractDoc(doc, "ownership"),
	URL:        "https://github.com/cancelcheck/cancelcheck/tree/main/passes/ownership",
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: reflect.TypeFor[*Result](),
	FactTypes:  []analysis.Fact{(*Consumes)(nil), (*ReturnsLease)(nil)},
	Run:        run,
}

// Consumes is the fact that a function releases or takes ownership of the
// parameters at Params (0-based, receiver excluded): a caller that passes a
// lease there has handed it off.
//
// Wraps lists those of Params that the function only returns, inside its
// result (http.MaxBytesReader(w, r.Body, n) returns a reader holding the
// body): the caller's lease now lives in the result, and a caller that
// drops the result has released nothing.
type Consumes struct{ Params, Wraps []int }

func (*Consumes) AFact() {}

func (f *Consumes) String() string {
	s := make([]string, len(f.Params))
	for i, p := range f.Params {
		s[i] = fmt.Sprint(p)
	}
	out := "releases its parameter " + strings.Join(s, ", ")
	if len(f.Wraps) > 0 {
		w := make([]string, len(f.Wraps))
		for i, p := range f.Wraps {
			w[i] = fmt.Sprint(p)
		}
		out += " (wraps " + strings.Join(w, ", ") + ")"
	}
	return out
}

// ReturnsLease is the fact that a function returns, in result Index, a
// lease of kind KindID that it acquired: its callers own it.
type ReturnsLease struct {
	Index  int
	KindID string
	// MayBeNil is set when another return statement returns nil in the
	// lease's place (`return ctx, nil` when no timer was needed), so a
	// release must check for nil first.
	MayBeNil bool
}

func (*ReturnsLease) AFact() {}

func (f *ReturnsLease) String() string {
	if f.MayBeNil {
		return fmt.Sprintf("returns an owned %s or nil in result %d", f.KindID, f.Index)
	}
	return fmt.Sprintf("returns an owned %s in result %d", f.KindID, f.Index)
}

// Result is the ownership information of one package.
type Result struct {
	pass           *analysis.Pass
	info           *types.Info
	pkg            *types.Package
	extra          []*Extra
	consumes       map[*types.Func][]int
	wraps          map[*types.Func][]int
	returns        map[*types.Func]*ReturnsLease
	releasedFields map[*types.Var]bool // unexported fields that may hold a lease
	msets          *typeutil.MethodSetCache
	unlocks        map[*types.Func]bool
	// pairs holds PairedRelease's answers, computed on first use (the
	// checks that share this result, and its WithExtra views, may ask at
	// once).
	pairs *pairTable
	ins   *inspector.Inspector
}

type pairTable struct {
	once sync.Once
	m    map[*types.Func]*types.Func
}

// WithExtra returns a view of r that also knows the configured acquirers.
func (r *Result) WithExtra(extra []*Extra) *Result {
	c := *r
	c.extra = extra
	return &c
}

// Consumes reports whether fn releases or takes ownership of its parameter
// i.
func (r *Result) Consumes(fn *types.Func, i int) bool {
	fn = fn.Origin()
	if fn.Pkg() == r.pkg {
		return slices.Contains(r.consumes[fn], i)
	}
	var f Consumes
	return r.pass.ImportObjectFact(fn, &f) && slices.Contains(f.Params, i)
}

// Wraps reports whether fn takes its parameter i only into its result
// (see Consumes.Wraps).
func (r *Result) Wraps(fn *types.Func, i int) bool {
	fn = fn.Origin()
	if fn.Pkg() == r.pkg {
		return slices.Contains(r.wraps[fn], i)
	}
	var f Consumes
	return r.pass.ImportObjectFact(fn, &f) && slices.Contains(f.Wraps, i)
}

func (r *Result) returnsLease(fn *types.Func) *ReturnsLease {
	if fn.Pkg() == r.pkg {
		return r.returns[fn]
	}
	var f ReturnsLease
	if r.pass.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

// Unlocks reports whether fn, a function of this package, unlocks a mutex
// or releases a semaphore somewhere in its body.
func (r *Result) Unlocks(fn *types.Func) bool { return r.unlocks[fn.Origin()] }

func run(pass *analysis.Pass) (any, error) {
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	r := &Result{
		pass:           pass,
		info:           pass.TypesInfo,
		pkg:            pass.Pkg,
		consumes:       make(map[*types.Func][]int),
		wraps:          make(map[*types.Func][]int),
		returns:        make(map[*types.Func]*ReturnsLease),
		releasedFields: make(map[*types.Var]bool),
		msets:          new(typeutil.MethodSetCache),
		unlocks:        make(map[*types.Func]bool),
		pairs:          new(pairTable),
		ins:            ins,
	}
	var funcs []*summary
	for c := range ins.Root().Preorder((*ast.FuncDecl)(nil)) {
		d := c.Node().(*ast.FuncDecl)
		obj, _ := pass.TypesInfo.Defs[d.Name].(*types.Func)
		if d.Body == nil || obj == nil {
			continue
		}
		if s := r.summarize(obj, d); s != nil {
			funcs = append(funcs, s)
		}
	}
	// Field selections, for releasedFields.
	type fieldUse struct {
		field *types.Var
		stack []ast.Node
	}
	var fieldUses []fieldUse
	ins.WithStack([]ast.Node{(*ast.SelectorExpr)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		sel := n.(*ast.SelectorExpr)
		s := pass.TypesInfo.Selections[sel]
		if s == nil {
			return true
		}
		switch s.Kind() {
		case types.FieldVal:
			// typeReleases asks only about unexported fields that can
			// hold a lease; an exported one may be released by importers.
			if v, ok := s.Obj().(*types.Var); ok && v.Pkg() == pass.Pkg && !v.Exported() && mayHoldLease(v.Type()) {
				st := append(slices.Clone(stack), sel.Sel)
				fieldUses = append(fieldUses, fieldUse{v, st})
			}
		case types.MethodVal:
			if isLockRelease(s.Obj()) {
				if fd := enclosingDecl(stack); fd != nil {
					if obj, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
						r.unlocks[obj] = true
					}
				}
			}
		}
		return true
	})

	// The facts of one function depend on those of its callees in this
	// package and on which fields are released, so iterate to a fixed
	// point. Each round only re-classifies the uses summarize collected;
	// no function body is walked again.
	for changed := true; changed; {
		changed = false
		for _, fu := range fieldUses {
			if r.releasedFields[fu.field] {
				continue
			}
			if aliased(fu.stack) || r.classify(fu.stack, generic, map[types.Object]bool{fu.field: true}) != Borrow {
				r.releasedFields[fu.field] = true
				changed = true
			}
		}
		for _, f := range funcs {
			for _, p := range f.params {
				if slices.Contains(r.consumes[f.obj], p.index) {
					continue
				}
				if r.paramUse(p) != Borrow {
					r.consumes[f.obj] = append(r.consumes[f.obj], p.index)
					changed = true
				}
			}
			if r.returns[f.obj] == nil && len(f.returns) > 0 {
				if rl := r.computeReturns(f); rl != nil {
					r.returns[f.obj] = rl
					changed = true
				}
			}
		}
	}
	for _, f := range funcs {
		for _, p := range f.params {
			if slices.Contains(r.consumes[f.obj], p.index) && r.onlyReturned(p) {
				r.wraps[f.obj] = append(r.wraps[f.obj], p.index)
			}
		}
		if ps := r.consumes[f.obj]; len(ps) > 0 {
			slices.Sort(ps)
			analysisutil.ExportFuncFact(pass, f.obj, &Consumes{Params: ps, Wraps: r.wraps[f.obj]})
		}
		if rl := r.returns[f.obj]; rl != nil {
			analysisutil.ExportFuncFact(pass, f.obj, rl)
		}
	}
	return r, nil
}

func enclosingDecl(stack []ast.Node) *ast.FuncDecl {
	for i := len(stack) - 1; i >= 0; i-- {
		if fd, ok := stack[i].(*ast.FuncDecl); ok {
			return fd
		}
	}
	return nil
}

// isLockRelease reports whether obj is sync.(RW)Mutex.Unlock/RUnlock or
// semaphore.Weighted.Release.
func isLockRelease(obj types.Object) bool {
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	return analysisutil.IsMethod(fn, "sync", "Mutex", "Unlock") ||
		analysisutil.IsMethod(fn, "sync", "RWMutex", "Unlock") ||
		analysisutil.IsMethod(fn, "sync", "RWMutex", "RUnlock") ||
		analysisutil.IsMethod(fn, "sync", "Locker", "Unlock") ||
		analysisutil.IsMethod(fn, "golang.org/x/sync/semaphore", "Weighted", "Release")
}

// mayHoldLease reports whether a parameter of type t can hold a lease.
func mayHoldLease(t types.Type) bool { return mayHoldLeaseDepth(t, 0) }

func mayHoldLeaseDepth(t types.Type, depth int) bool {
	if depth > 4 {
		return true
	}
	if analysisutil.IsContext(t) || analysisutil.IsErrorInterface(t) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return true
	case *types.Struct:
		return true // any struct may be a configured lease
	case *types.Signature:
		// The only leases released by calling them are cancel functions,
		// func() and func(cause error); a func(rune) bool holds none,
		// unless its named type has methods (a configured lease).
		if n, ok := types.Unalias(t).(*types.Named); ok && n.NumMethods() > 0 {
			return true
		}
		if u.Results().Len() > 0 {
			return false
		}
		ps := u.Params()
		return ps.Len() == 0 || ps.Len() == 1 && !u.Variadic() && analysisutil.IsErrorInterface(ps.At(0).Type())
	case *types.Pointer:
		return mayHoldLeaseDepth(u.Elem(), depth+1)
	case *types.Slice:
		return mayHoldLeaseDepth(u.Elem(), depth+1)
	case *types.Array:
		return mayHoldLeaseDepth(u.Elem(), depth+1)
	case *types.Map:
		return mayHoldLeaseDepth(u.Elem(), depth+1)
	case *types.Chan:
		return mayHoldLeaseDepth(u.Elem(), depth+1)
	}
	return false
}

// computeReturns returns the ReturnsLease fact of f, or nil: some return
// statement returns, in one result, a lease the function acquired and did
// not also hand to someone else.
func (r *Result) computeReturns(f *summary) *ReturnsLease {
	fact := r.returnedLease(f)
	if fact != nil {
		// nil next to a non-nil error is the usual failure: callers check
		// the error. nil next to a nil error (or with no error result) is a
		// success without a lease.
		sig := f.obj.Type().(*types.Signature)
		errIdx := analysisutil.ErrorResult(sig)
		isNil := func(e ast.Expr) bool {
			tv, ok := r.info.Types[e]
			return ok && tv.IsNil()
		}
		for _, ret := range f.returns {
			if len(ret.Results) == sig.Results().Len() && isNil(ret.Results[fact.Index]) &&
				(errIdx < 0 || isNil(ret.Results[errIdx])) {
				fact.MayBeNil = true
			}
		}
	}
	return fact
}

func (r *Result) returnedLease(f *summary) *ReturnsLease {
	sig := f.obj.Type().(*types.Signature)
	decl := f.decl
	// Variables holding a lease acquired in this function.
	held := make(map[types.Object]*Kind)
	for _, n := range f.assigns {
		call := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
		if a := r.Acquisition(call); a != nil && a.Index < len(n.Lhs) && len(n.Lhs) > 1 || a != nil && len(n.Lhs) == 1 && a.Index == 0 {
			if id, ok := n.Lhs[a.Index].(*ast.Ident); ok && id.Name != "_" {
				if v := r.info.ObjectOf(id); v != nil {
					held[v] = a.Kind
				}
			}
		}
	}
	for _, ret := range f.returns {
		if len(ret.Results) == 1 && sig.Results().Len() > 1 {
			if call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr); ok {
				if a := r.Acquisition(call); a != nil {
					return &ReturnsLease{Index: a.Index, KindID: a.Kind.ID}
				}
			}
			continue
		}
		for i, e := range ret.Results {
			switch e := ast.Unparen(e).(type) {
			case *ast.CallExpr:
				if a := r.Acquisition(e); a != nil && a.Index == 0 && sig.Results().Len() == len(ret.Results) {
					if t := r.info.TypeOf(e); t != nil && !isTuple(t) {
						return &ReturnsLease{Index: i, KindID: a.Kind.ID}
					}
				}
			case *ast.Ident:
				v := r.info.Uses[e]
				k := held[v]
				if k == nil {
					continue
				}
				if r.handedElsewhere(decl.Body, v, k) {
					continue
				}
				return &ReturnsLease{Index: i, KindID: k.ID}
			}
		}
	}
	return nil
}

func isTuple(t types.Type) bool { _, ok := t.(*types.Tuple); return ok }

// handedElsewhere reports whether v is released or handed off in body other
// than by being returned.
func (r *Result) handedElsewhere(body ast.Node, v types.Object, k *Kind) bool {
	objs := map[types.Object]bool{v: true}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.ReturnStmt:
			for _, e := range n.Results {
				if id, ok := ast.Unparen(e).(*ast.Ident); ok && objs[r.info.Uses[id]] {
					continue
				}
				if r.UseOf(e, objs, k) != Borrow {
					found = true
				}
			}
			return false
		case ast.Stmt:
			switch n.(type) {
			case *ast.BlockStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
				*ast.SelectStmt, *ast.CaseClause, *ast.CommClause, *ast.LabeledStmt:
				return true
			}
			if as, ok := n.(*ast.AssignStmt); ok && r.replacesField(as, v, k) {
				found = true
				return false
			}
			if r.UseOf(n, objs, k) != Borrow {
				found = true
			}
			return false
		}
		return true
	})
	return found
}

// replacesField reports whether as puts into v's lease field (resp.Body)
// a value that does not hold the field's old value: `resp.Body = nil`,
// `resp.Body = io.NopCloser(bytes.NewReader(b))`. What the caller gets
// back then is not the lease the function acquired; the function closed
// the old value, or keeps it (nhooyr.io/websocket's Dial, whose documented
// resp.Body needs no close). A wrapper of the old value
// (`resp.Body = cancelOnClose{resp.Body, cancel}`) still hands it over.
func (r *Result) replacesField(as *ast.AssignStmt, v types.Object, k *Kind) bool {
	if k.Field == "" || k.Field == "*" {
		return false
	}
	isField := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != k.Field {
			return false
		}
		id, ok := ast.Unparen(sel.X).(*ast.Ident)
		return ok && r.info.Uses[id] == v
	}
	for i, l := range as.Lhs {
		if !isField(l) || len(as.Rhs) != len(as.Lhs) {
			continue
		}
		keeps := false
		ast.Inspect(as.Rhs[i], func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok && isField(e) {
				keeps = true
			}
			return !keeps
		})
		if !keeps {
			return true
		}
	}
	return false
}

// aliased reports whether the field selection ending stack (..., sel,
// sel.Sel) is copied into a variable (x := s.f), whose later release we
// do not follow: count it as released.
func aliased(stack []ast.Node) bool {
	if len(stack) < 3 {
		return false
	}
	sel := stack[len(stack)-2]
	switch p := stack[len(stack)-3].(type) {
	case *ast.AssignStmt:
		for _, r := range p.Rhs {
			if r == sel {
				return true
			}
		}
	case *ast.ValueSpec:
		for _, v := range p.Values {
			if v == sel {
				return true
			}
		}
	}
	return false
}
