package leaseleak

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// namedErrors returns the function's named results of error type.
func (l *lease) namedErrors() map[types.Object]bool {
	info := l.f.info()
	var out map[types.Object]bool
	if l.f.ftype.Results != nil {
		for _, fld := range l.f.ftype.Results.List {
			for _, n := range fld.Names {
				if o := info.Defs[n]; o != nil && analysisutil.IsErrorInterface(o.Type()) {
					if out == nil {
						out = map[types.Object]bool{}
					}
					out[o] = true
				}
			}
		}
	}
	return out
}

// failureOnly reports whether the deferred literal lit releases the lease
// only under `if err != nil`, err being one of the named error results
// errs: it runs the release only when the function fails (defer func() {
// if err != nil { span.End() } }()).
func (l *lease) failureOnly(lit *ast.FuncLit, errs map[types.Object]bool) bool {
	info, own := l.f.info(), l.f.s.own
	guarded := false
	for _, st := range lit.Body.List {
		if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil && failureCond(info, ifs.Cond, errs) &&
			(ifs.Else == nil || own.UseOf(ifs.Else, l.objs, l.kind()) == ownership.Borrow) {
			switch own.UseOf(ifs.Body, l.objs, l.kind()) {
			case ownership.Release:
				guarded = true
			case ownership.HandOff:
				return false
			}
			continue
		}
		if own.UseOf(st, l.objs, l.kind()) != ownership.Borrow {
			return false
		}
	}
	return guarded
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
