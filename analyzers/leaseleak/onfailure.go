package leaseleak

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// failureOnlyDefers returns the deferred literals after the acquisition
// that release the lease only under `if err != nil`, err being a named
// error result of the function: they run the release only when the
// function fails (defer func() { if err != nil { span.End() } }()).
func (l *lease) failureOnlyDefers() map[*ast.DeferStmt]bool {
	f := l.f
	info := f.info()
	results := map[types.Object]bool{}
	if f.ftype.Results != nil {
		for _, fld := range f.ftype.Results.List {
			for _, n := range fld.Names {
				if o := info.Defs[n]; o != nil && analysisutil.IsErrorInterface(o.Type()) {
					results[o] = true
				}
			}
		}
	}
	if len(results) == 0 {
		return nil
	}
	var out map[*ast.DeferStmt]bool
	for c := range f.cur.Preorder((*ast.DeferStmt)(nil)) {
		ds := c.Node().(*ast.DeferStmt)
		lit, ok := ast.Unparen(ds.Call.Fun).(*ast.FuncLit)
		if !ok || ds.Pos() < l.stmt.Pos() {
			continue
		}
		if fn, _ := enclosingFunc(c); fn != f.cur.Node() {
			continue
		}
		guarded, other := false, false
		for _, st := range lit.Body.List {
			if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil && failureCond(info, ifs.Cond, results) &&
				(ifs.Else == nil || f.s.own.UseOf(ifs.Else, l.objs, l.kind()) == ownership.Borrow) {
				if f.s.own.UseOf(ifs.Body, l.objs, l.kind()) == ownership.Release {
					guarded = true
				} else if f.s.own.UseOf(ifs.Body, l.objs, l.kind()) != ownership.Borrow {
					other = true
				}
				continue
			}
			if f.s.own.UseOf(st, l.objs, l.kind()) != ownership.Borrow {
				other = true
			}
		}
		if guarded && !other {
			if out == nil {
				out = map[*ast.DeferStmt]bool{}
			}
			out[ds] = true
		}
	}
	return out
}

// failureCond reports whether cond is `err != nil` for a named error
// result err.
func failureCond(info *types.Info, cond ast.Expr, results map[types.Object]bool) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ {
		return false
	}
	x, y := ast.Unparen(b.X), ast.Unparen(b.Y)
	if isNil(info, x) {
		x, y = y, x
	}
	id, ok := x.(*ast.Ident)
	return ok && results[info.ObjectOf(id)] && isNil(info, y)
}

// nilReturnsPast keeps, of the returns the search found without a release
// (the failure-only defers not counting as one), those the lease really
// leaks through: a return some path reaches before a failure-only defer is
// registered, or one that returns a nil error, so that the deferred
// release does not run. A return of anything else in the error's place
// (a bare return, a variable, a call) may fail, and is given the benefit.
func (l *lease) nilReturnsPast(onFailure map[*ast.DeferStmt]bool, leaks []*ast.ReturnStmt) []*ast.ReturnStmt {
	g := l.f.s.paths.Func(l.f.cur.Node())
	if g == nil {
		return nil
	}
	acq, ok := g.Locate(l.stmt)
	if !ok {
		return nil
	}
	info := l.f.info()
	var sig *types.Signature
	switch fn := l.f.cur.Node().(type) {
	case *ast.FuncDecl:
		if o, ok := info.Defs[fn.Name].(*types.Func); ok {
			sig = o.Type().(*types.Signature)
		}
	case *ast.FuncLit:
		sig, _ = info.TypeOf(fn).(*types.Signature)
	}
	errIdx := analysisutil.ErrorResult(sig)
	var out []*ast.ReturnStmt
	for _, ret := range leaks {
		target, ok := g.Locate(ret)
		if !ok {
			continue
		}
		_, before := g.Reaches(acq.Next(), func(n ast.Node) bool { return n == target.Node() }, func(n ast.Node) bool {
			ds, ok := n.(*ast.DeferStmt)
			return ok && onFailure[ds]
		})
		if before || errIdx >= 0 && errIdx < len(ret.Results) && isNil(info, ret.Results[errIdx]) {
			out = append(out, ret)
		}
	}
	return out
}
