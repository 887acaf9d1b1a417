package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// boundLease is a lease whose life database/sql ties to the context it was
// acquired with: a *sql.Tx from BeginTx(ctx) is rolled back, and *sql.Rows
// from QueryContext(ctx) are closed, as soon as ctx is done.
type boundLease struct {
	obj  types.Object // the lease variable
	ctx  types.Object // the context variable passed at the acquisition
	call *ast.CallExpr
	acq  *ownership.Acquisition
}

// failsAfterDone returns the consequence of calling method on a lease of
// kind k after its context is done, or "" when the call is harmless
// (Rollback, Close, Err).
func failsAfterDone(k *ownership.Kind, method, lease, ctx string) string {
	switch k {
	case ownership.KindTx:
		if method == "Rollback" {
			return ""
		}
		return fmt.Sprintf("so %s.%s fails (with sql.ErrTxDone or the context's error): database/sql rolls the transaction back as soon as %s ends", lease, method, ctx)
	case ownership.KindRows:
		switch method {
		case "Next", "NextResultSet":
			return fmt.Sprintf("so %s.%s returns false and the remaining rows are lost: database/sql closes the rows as soon as %s ends", lease, method, ctx)
		case "Scan", "Columns", "ColumnTypes":
			return fmt.Sprintf("so %s.%s fails with \"sql: Rows are closed\": database/sql closes the rows as soon as %s ends", lease, method, ctx)
		}
	}
	return ""
}

// checkAfterDone reports a *sql.Tx or *sql.Rows used inside a branch where
// the context it was acquired with is known to be done: the case
// <-ctx.Done() of a select, the statements after <-ctx.Done(), or the body
// of if ctx.Err() != nil / if errors.Is(ctx.Err(), ...).
func (f *function) checkAfterDone() {
	info := f.info()
	leases := make(map[types.Object]*boundLease)
	assigns := make(map[types.Object]int) // assignments (and address-takings) in the body, closures included
	var lits []*ast.FuncLit
	inLit := func(pos token.Pos) bool {
		for _, l := range lits {
			if l.Pos() <= pos && pos < l.End() {
				return true
			}
		}
		return false
	}
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					if obj := info.ObjectOf(id); obj != nil {
						assigns[obj]++
					}
				}
			}
			if n.Tok == token.DEFINE && len(n.Rhs) == 1 && !inLit(n.Pos()) {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					if l := f.boundLease(call, n.Lhs); l != nil {
						leases[l.obj] = l
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				if obj := info.ObjectOf(id); obj != nil {
					assigns[obj]++
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
					if obj := info.ObjectOf(id); obj != nil {
						assigns[obj] += 2
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok {
					if obj := info.ObjectOf(id); obj != nil {
						assigns[obj] += 2
					}
				}
			}
		}
		return true
	})
	for obj, l := range leases {
		// The lease is assigned once (its definition); its context never
		// after it is declared (a parameter has no assignment in the body).
		if assigns[obj] != 1 || assigns[l.ctx] > 1 || assigns[l.ctx] == 1 && l.ctx.Pos() < f.body.Pos() {
			delete(leases, obj)
		}
	}
	if len(leases) == 0 {
		return
	}
	reported := make(map[*boundLease]bool)
	check := func(ctx types.Object, region []ast.Stmt) {
		if ctx == nil || len(region) == 0 {
			return
		}
		start, end := region[0].Pos(), region[len(region)-1].End()
		for _, st := range region {
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
					if !ok {
						return true
					}
					id, ok := ast.Unparen(sel.X).(*ast.Ident)
					if !ok {
						return true
					}
					l := leases[info.Uses[id]]
					if l == nil || l.ctx != ctx || reported[l] || start <= l.call.Pos() && l.call.Pos() < end {
						return true
					}
					if fn, ok := info.Uses[sel.Sel].(*types.Func); !ok || fn.Pkg() == nil || fn.Pkg().Path() != "database/sql" {
						return true
					}
					why := failsAfterDone(l.acq.Kind, sel.Sel.Name, id.Name, ctx.Name())
					if why == "" {
						return true
					}
					reported[l] = true
					f.s.rep.Report(analysis.Diagnostic{
						Pos: n.Pos(), End: n.End(),
						Message: fmt.Sprintf("%s from %s is used after its context %s is done, %s",
							id.Name, l.acq.Name, ctx.Name(), why),
						Related: []analysis.RelatedInformation{{Pos: l.call.Pos(), End: l.call.End(), Message: "acquired with " + ctx.Name() + " here"}},
					})
				}
				return true
			})
		}
	}
	stmtList := func(list []ast.Stmt) {
		for i, st := range list {
			if es, ok := st.(*ast.ExprStmt); ok {
				if ctx := f.doneRecv(es.X); ctx != nil {
					check(ctx, list[i+1:])
				}
			}
		}
	}
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			stmtList(n.List)
		case *ast.CaseClause:
			stmtList(n.Body)
		case *ast.CommClause:
			stmtList(n.Body)
			switch c := n.Comm.(type) {
			case *ast.ExprStmt:
				check(f.doneRecv(c.X), n.Body)
			case *ast.AssignStmt:
				if len(c.Rhs) == 1 {
					check(f.doneRecv(c.Rhs[0]), n.Body)
				}
			}
		case *ast.IfStmt:
			check(f.ifDone(n), n.Body.List)
		}
		return true
	})
}

// boundLease returns the lease acquired by call, assigned to lhs, when
// database/sql ties it to the context variable call passes.
func (f *function) boundLease(call *ast.CallExpr, lhs []ast.Expr) *boundLease {
	a := f.s.own.Acquisition(call)
	if a == nil || a.Fn == nil || a.Index >= len(lhs) || len(call.Args) == 0 {
		return nil
	}
	bound := false
	switch a.Fn.Name() {
	case "BeginTx":
		bound = analysisutil.IsMethod(a.Fn, "database/sql", "DB", "BeginTx") || analysisutil.IsMethod(a.Fn, "database/sql", "Conn", "BeginTx")
	case "QueryContext":
		for _, t := range []string{"DB", "Tx", "Conn", "Stmt"} {
			bound = bound || analysisutil.IsMethod(a.Fn, "database/sql", t, "QueryContext")
		}
	}
	if !bound {
		return nil
	}
	ctxID, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	if !ok {
		return nil
	}
	ctx, ok := f.info().Uses[ctxID].(*types.Var)
	if !ok || !analysisutil.IsContext(ctx.Type()) {
		return nil
	}
	id, ok := ast.Unparen(lhs[a.Index]).(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	obj := f.info().Defs[id]
	if obj == nil {
		return nil
	}
	return &boundLease{obj: obj, ctx: ctx, call: call, acq: a}
}

// doneRecv returns the context variable X of the receive <-X.Done(), or nil.
func (f *function) doneRecv(e ast.Expr) types.Object {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return nil
	}
	return f.ctxMethod(u.X, "Done")
}

// ctxMethod returns the context variable X of the call X.name() of a
// context.Context method, or nil.
func (f *function) ctxMethod(e ast.Expr, name string) types.Object {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return nil
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := f.info().Uses[id].(*types.Var)
	if !ok || !analysisutil.IsContext(v.Type()) {
		return nil
	}
	return v
}

// ifDone returns X when the body of n runs only once context X is done:
// if X.Err() != nil, if errors.Is(X.Err(), ...), or the same with the error
// bound first (if err := X.Err(); err != nil).
func (f *function) ifDone(n *ast.IfStmt) types.Object {
	if n.Init == nil {
		return f.errCond(n.Cond, nil)
	}
	as, ok := n.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	ctx := f.ctxMethod(as.Rhs[0], "Err")
	if ctx == nil {
		return nil
	}
	if f.errCond(n.Cond, f.info().Defs[id]) == nil {
		return nil
	}
	return ctx
}

// errCond returns X when cond holds only once context X is done:
// X.Err() != nil, nil != X.Err() or errors.Is(X.Err(), ...). When errVar
// is not nil, it stands for X.Err() and errCond returns errVar itself when
// cond tests it that way.
func (f *function) errCond(cond ast.Expr, errVar types.Object) types.Object {
	ctxErr := func(e ast.Expr) types.Object {
		if errVar != nil {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok && f.info().Uses[id] == errVar {
				return errVar
			}
			return nil
		}
		return f.ctxMethod(e, "Err")
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.BinaryExpr:
		if c.Op != token.NEQ {
			return nil
		}
		x, y := c.X, c.Y
		if isNil(f.info(), x) {
			x, y = y, x
		}
		if isNil(f.info(), y) {
			return ctxErr(x)
		}
	case *ast.CallExpr:
		if fn := analysisutil.Callee(f.info(), c); analysisutil.IsFunc(fn, "errors", "Is") && len(c.Args) == 2 && !isNil(f.info(), c.Args[1]) {
			return ctxErr(c.Args[0])
		}
	}
	return nil
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[ast.Unparen(e)]
	return ok && tv.IsNil()
}
