package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// Registered is an unbuffered reply channel a function makes and registers
// in a map that outlives it (c.pending[id] = ch, directly or through a
// helper of the package that stores its parameter there), then waits on in
// a select that can give up (a Done arm, a timer) and return without
// taking the entry out again: whoever later finds the channel in the map
// and delivers the reply blocks on the send forever, usually a connection's
// reader goroutine, and with it every other call on the connection.
type Registered struct {
	Make   *ast.CallExpr // make(chan T)
	Chan   *types.Var
	Owner  *ctxflow.Func
	Store  ast.Node        // the store into the map, or the call of the helper
	Field  *types.Var      // the map field or variable
	GiveUp *ast.CommClause // the select arm that gives up
	Exit   flow.Exit       // where the function returns from it
}

// registries finds the package's Registered channels.
func (a *analysis) registries() {
	var stores map[*types.Func]map[int]*types.Var // helper -> param index -> map it stores into
	var deleters map[*types.Var]map[*types.Func]bool
	for _, f := range a.flow.Funcs {
		if f.Body == nil || !hasSelect(f.Body) {
			continue
		}
		if stores == nil {
			stores, deleters = a.registryHelpers()
		}
		a.registered(f, stores, deleters)
	}
}

func hasSelect(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.SelectStmt); ok {
			found = true
		}
		return !found
	})
	return found
}

// mapStore returns the map variable or field that `m[k] = v` stores v in,
// when v is the identifier of obj.
func (a *analysis) mapStore(as *ast.AssignStmt, obj types.Object) *types.Var {
	if len(as.Lhs) != len(as.Rhs) {
		return nil
	}
	for i, r := range as.Rhs {
		id, ok := ast.Unparen(r).(*ast.Ident)
		if !ok || a.info.Uses[id] != obj {
			continue
		}
		ix, ok := ast.Unparen(as.Lhs[i]).(*ast.IndexExpr)
		if !ok {
			continue
		}
		if _, isMap := a.info.TypeOf(ix.X).Underlying().(*types.Map); !isMap {
			continue
		}
		if v := a.mapVar(ix.X); v != nil {
			return v
		}
	}
	return nil
}

// mapVar returns the field or package variable a map expression names.
func (a *analysis) mapVar(e ast.Expr) *types.Var {
	var obj types.Object
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		obj = a.info.Uses[e.Sel]
	case *ast.Ident:
		obj = a.info.Uses[e]
	}
	v, ok := obj.(*types.Var)
	if !ok || !(v.IsField() || v.Parent() == v.Pkg().Scope()) {
		return nil
	}
	return v
}

// registryHelpers finds the package's functions that store a channel
// parameter in a map (register(id, ch)), and those that delete from a map
// (take(id), forget(id)).
func (a *analysis) registryHelpers() (map[*types.Func]map[int]*types.Var, map[*types.Var]map[*types.Func]bool) {
	stores := make(map[*types.Func]map[int]*types.Var)
	deleters := make(map[*types.Var]map[*types.Func]bool)
	for _, f := range a.flow.Funcs {
		if f.Obj == nil || f.Body == nil {
			continue
		}
		params := f.Sig.Params()
		ast.Inspect(f.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i := range params.Len() {
					p := params.At(i)
					if _, isChan := p.Type().Underlying().(*types.Chan); !isChan {
						continue
					}
					if m := a.mapStore(n, p); m != nil {
						if stores[f.Obj] == nil {
							stores[f.Obj] = make(map[int]*types.Var)
						}
						stores[f.Obj][i] = m
					}
				}
			case *ast.CallExpr:
				if a.isBuiltin(n, "delete") && len(n.Args) == 2 {
					if m := a.mapVar(n.Args[0]); m != nil {
						if deleters[m] == nil {
							deleters[m] = make(map[*types.Func]bool)
						}
						deleters[m][f.Obj] = true
					}
				}
			}
			return true
		})
	}
	return stores, deleters
}

// registered looks in f for unbuffered channels it registers and can give
// up on.
func (a *analysis) registered(f *ctxflow.Func, stores map[*types.Func]map[int]*types.Var, deleters map[*types.Var]map[*types.Func]bool) {
	g := a.graphs.Func(f.Node)
	if g == nil {
		return
	}
	type made struct {
		call  *ast.CallExpr
		v     *types.Var
		store ast.Node
		field *types.Var
	}
	var chans []*made
	byVar := map[*types.Var]*made{}
	inspectNode(f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, r := range n.Rhs {
					if call := a.unbufferedMake(r); call != nil {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							if v, ok := a.info.Defs[id].(*types.Var); ok {
								m := &made{call: call, v: v}
								chans = append(chans, m)
								byVar[v] = m
							}
						}
					}
				}
			}
			for v, m := range byVar {
				if m.store == nil {
					if field := a.mapStore(n, v); field != nil {
						m.store, m.field = n, field
					}
				}
			}
		case *ast.CallExpr:
			fn := analysisutil.Callee(a.info, n)
			if fn == nil || stores[fn.Origin()] == nil {
				return true
			}
			for i, arg := range n.Args {
				id, ok := ast.Unparen(arg).(*ast.Ident)
				if !ok {
					continue
				}
				v, _ := a.info.Uses[id].(*types.Var)
				if m := byVar[v]; v != nil && m != nil && m.store == nil && stores[fn.Origin()][i] != nil {
					m.store, m.field = n, stores[fn.Origin()][i]
				}
			}
		}
		return true
	})
	for _, m := range chans {
		if m.store == nil || a.chanUsedElsewhere(f, m.v) {
			continue
		}
		// Taking the entry out again: a delete from the same map, or a
		// call of a function of the package that deletes from it.
		forgets := func(n ast.Node) bool {
			found := false
			ast.Inspect(n, func(x ast.Node) bool {
				call, ok := x.(*ast.CallExpr)
				if !ok {
					return !found
				}
				if a.isBuiltin(call, "delete") && len(call.Args) == 2 && a.mapVar(call.Args[0]) == m.field {
					found = true
				}
				if fn := analysisutil.Callee(a.info, call); fn != nil && deleters[m.field][fn.Origin()] {
					found = true
				}
				return !found
			})
			return found
		}
		for _, sel := range a.selectsOn(f.Body, m.v) {
			for _, st := range sel.Body.List {
				cc := st.(*ast.CommClause)
				if cc.Comm != nil && a.recvFrom(cc.Comm, m.v) {
					continue // the reply
				}
				var p flow.Point
				for _, b := range g.CFG.Blocks {
					if b.Stmt == cc && b.Kind == cfg.KindSelectCaseBody && b.Live {
						p = flow.Point{Block: b}
					}
				}
				if !p.Valid() {
					continue
				}
				exit, ok := g.ExitAvoiding(p, forgets)
				if !ok || exit.Return == nil {
					continue
				}
				a.res.Registered = append(a.res.Registered, &Registered{
					Make: m.call, Chan: m.v, Owner: f, Store: m.store, Field: m.field, GiveUp: cc, Exit: exit,
				})
				goto next
			}
		}
	next:
	}
}

// chanUsedElsewhere reports whether v is used by f other than in its
// registration and receives: sent on, closed, returned, captured by a
// literal, stored again; then its story is not this one.
func (a *analysis) chanUsedElsewhere(f *ctxflow.Func, v *types.Var) bool {
	used := false
	var stack []ast.Node
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok || a.info.Uses[id] != v {
			return !used
		}
		for _, s := range stack {
			if _, ok := s.(*ast.FuncLit); ok {
				used = true
			}
		}
		switch p := stack[len(stack)-2].(type) {
		case *ast.UnaryExpr: // <-ch
		case *ast.CallExpr: // register(id, ch)
			if a.isBuiltin(p, "close") {
				used = true
			}
		case *ast.AssignStmt: // m[k] = ch
		default:
			used = true
		}
		return !used
	})
	return used
}

// selectsOn returns the select statements of body with an arm receiving
// from v.
func (a *analysis) selectsOn(body *ast.BlockStmt, v *types.Var) []*ast.SelectStmt {
	var out []*ast.SelectStmt
	inspectNode(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if sel, ok := n.(*ast.SelectStmt); ok {
			for _, st := range sel.Body.List {
				if cc := st.(*ast.CommClause); cc.Comm != nil && a.recvFrom(cc.Comm, v) {
					out = append(out, sel)
					break
				}
			}
		}
		return true
	})
	return out
}

// recvFrom reports whether the comm statement receives from v.
func (a *analysis) recvFrom(comm ast.Stmt, v *types.Var) bool {
	u := commRecv(comm)
	if u == nil {
		return false
	}
	id, ok := ast.Unparen(u.X).(*ast.Ident)
	return ok && a.info.Uses[id] == v
}
