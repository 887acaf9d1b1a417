package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// checkReleaser looks at a function that releases a lease it is given
// (the ownership pass's Consumes: tx.Rollback() on a *sql.Tx parameter),
// so that its callers count the call as the release (`defer
// rollback(ctx, tx)`), and reports a return that skips the release on
// the way out of a test of the context's end or of an error: there the
// caller's lease is left held, and no caller sees it.
//
//	func rollback(ctx context.Context, tx *sql.Tx) {
//		if ctx.Err() != nil {
//			return // the transaction stays open
//		}
//		_ = tx.Rollback()
//	}
//
// A path on which the parameter is nil holds nothing; one that stores or
// hands the lease on disposes of it. Returns under other conditions (a
// flag saying whether to release) are the function's contract, not
// judged.
func (f *function) checkReleaser() {
	fd, ok := f.cur.Node().(*ast.FuncDecl)
	if !ok {
		return
	}
	info := f.info()
	obj, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return
	}
	sig := obj.Type().(*types.Signature)
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if p.Name() == "" || p.Name() == "_" || analysisutil.IsContext(p.Type()) {
			continue
		}
		if !f.s.own.Consumes(obj, i) || f.s.own.Wraps(obj, i) {
			continue
		}
		if _, isFunc := p.Type().Underlying().(*types.Signature); isFunc {
			continue // a callback it runs, or a cancel function it may own
		}
		f.checkReleasedParam(obj, p)
	}
}

func (f *function) checkReleasedParam(fn *types.Func, p *types.Var) {
	info := f.info()
	k := ownership.Generic()
	objs := f.s.own.Aliases(f.body, map[types.Object]bool{p: true}, k)
	isLease := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && objs[info.ObjectOf(id)]
	}
	// It releases the parameter itself: a release method without
	// arguments called on it (tx.Rollback()), not only handed to code
	// that may keep it.
	releases, paired := false, false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || !isLease(sel.X) {
			return true
		}
		if _, pair := knowledge.ReceiverPairs[sel.Sel.Name]; pair {
			// slots.Acquire(ctx) ... slots.Release(): a pair the
			// function takes and gives back itself, on a shared pool.
			paired = true
		}
		if k.Releases(sel.Sel.Name) && len(call.Args) == 0 {
			// tx.Rollback(), f.Close(): a release of the value itself;
			// store.Put(ctx, item) shares a pool's release name only.
			releases = true
		}
		return true
	})
	if !releases || paired || f.aliasReassigned(objs) {
		return
	}
	w := &walker{
		stable: f.stableConds(),
		info:   info,
		start:  f.cfg.Blocks[0],
		index:  -1,
		disposes: func(n ast.Node) bool {
			return f.s.own.UseOf(n, objs, k) != ownership.Borrow
		},
		assignsErr: func(ast.Node) bool { return false },
		failed: func(cond ast.Expr, truth bool) bool {
			// if tx == nil { return }: nothing was given.
			b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
			if !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
				return false
			}
			nilSide := isNil(info, b.Y) && isLease(b.X) || isNil(info, b.X) && isLease(b.Y)
			return nilSide && truth == (b.Op == token.EQL)
		},
		released: func(ast.Expr, bool) bool { return false },
		tagCases: f.tagCases(),
	}
	out := w.search()
	var leaks []*ast.ReturnStmt
	for _, ret := range out.leaks {
		if cond := f.guard(ret); cond != nil && (f.s.flow.ChecksCancel(cond) || testsError(info, cond)) {
			leaks = append(leaks, ret)
		}
	}
	if len(leaks) == 0 {
		return
	}
	var related []analysis.RelatedInformation
	for _, ret := range leaks {
		related = append(related, analysis.RelatedInformation{Pos: ret.Pos(), End: ret.End(),
			Message: "this return leaves " + p.Name() + " held"})
	}
	f.s.rep.Report(analysis.Diagnostic{
		Pos: leaks[0].Pos(), End: leaks[0].End(),
		Message: fmt.Sprintf("%s releases its parameter %s on some paths, so callers hand %s to it to be released, but the return%s skips the release: the caller's %s stays held",
			fn.Name(), p.Name(), p.Name(), f.condition(leaks[0]), types.TypeString(p.Type(), func(pkg *types.Package) string {
				if pkg == f.s.pass.Pkg {
					return ""
				}
				return pkg.Name()
			})),
		Related: related[1:],
	})
}

// aliasReassigned reports whether a variable holding the lease is also
// assigned something else (f := stdin; if name != "-" { f, err =
// os.Open(name) }): which value a later release gives back depends on the
// path, and the walk does not follow values.
func (f *function) aliasReassigned(objs map[types.Object]bool) bool {
	info := f.info()
	found := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found {
			return !found
		}
		for i, l := range as.Lhs {
			id, ok := ast.Unparen(l).(*ast.Ident)
			if !ok || !objs[info.ObjectOf(id)] {
				continue
			}
			if len(as.Rhs) != len(as.Lhs) {
				found = true
				break
			}
			if r, ok := ast.Unparen(as.Rhs[i]).(*ast.Ident); !ok || !objs[info.ObjectOf(r)] {
				found = true
				break
			}
		}
		return !found
	})
	return found
}

// guard returns the condition of the if statement whose body (or else)
// holds ret most closely, or nil.
func (f *function) guard(ret *ast.ReturnStmt) ast.Expr {
	c, ok := f.cur.FindNode(ret)
	if !ok {
		return nil
	}
	for p := c.Parent(); p.Node() != nil; p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return nil
		case *ast.IfStmt:
			return n.Cond
		}
	}
	return nil
}

// testsError reports whether cond compares an error with nil.
func testsError(info *types.Info, cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || found {
			return !found
		}
		if (b.Op == token.EQL || b.Op == token.NEQ) &&
			(analysisutil.IsError(info.TypeOf(b.X)) && isNil(info, b.Y) || analysisutil.IsError(info.TypeOf(b.Y)) && isNil(info, b.X)) {
			found = true
		}
		return !found
	})
	return found
}
