package goroutines

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"

	goanalysis "golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// summary is what a function body does with its parameters.
type summary struct {
	signals bool         // calls WaitGroup.Done, closes or sends, itself or through a local call
	joins   map[int]bool // parameter indexes it signals through
	// fields holds the struct fields it signals through (`s.results <- r`,
	// `close(s.done)`, s.wg.Done()), itself or through a local helper, each
	// with the value it is reached from: -1 for the receiver, or the index
	// of a parameter (a value the body makes itself does not count).
	fields map[types.Object]int
	// adds holds the WaitGroup fields it calls Add on (t.wg.Add(1) in a
	// tracker's enter method), in the same form.
	adds   map[types.Object]int
	spawns map[int]bool // function parameters it runs in a goroutine
	bound  bool         // worker loop or watcher
}

// equal reports whether s and t say the same.
func (s *summary) equal(t *summary) bool {
	return s.signals == t.signals && s.bound == t.bound &&
		maps.Equal(s.joins, t.joins) && maps.Equal(s.spawns, t.spawns) &&
		maps.Equal(s.fields, t.fields) && maps.Equal(s.adds, t.adds)
}

// summaryOf returns the summary of a function of this package, computing it
// on first use. Summaries of functions that call each other are a fixed
// point: a call that reaches a summary still being computed marks the
// outermost computation cyclic, and once it ends every summary computed
// under it is recomputed from the others until none changes, so the result
// does not depend on which function of a cycle was asked first.
func (a *analysis) summaryOf(fn *types.Func) *summary {
	fn = fn.Origin()
	if s, ok := a.summaries[fn]; ok {
		if a.computing[fn] {
			a.cyclic = true
		}
		return s
	}
	decl := a.decls[fn]
	if decl == nil || decl.Body == nil {
		return nil
	}
	s := &summary{}
	a.summaries[fn] = s // what a cycle sees until the fixed point below
	a.computing[fn] = true
	a.batch = append(a.batch, fn)
	outer := len(a.computing) == 1
	*s = *a.computeSummary(fn, decl)
	delete(a.computing, fn)
	if outer {
		if a.cyclic {
			// Recomputing can reach functions not seen yet; the sentinel
			// keeps their computations from ending the batch.
			a.computing[nil] = true
			for range maxSummaryRounds {
				changed := false
				for i := 0; i < len(a.batch); i++ {
					f := a.batch[i]
					ns := a.computeSummary(f, a.decls[f])
					if old := a.summaries[f]; !old.equal(ns) {
						*old = *ns
						changed = true
					}
				}
				if !changed {
					break
				}
			}
			delete(a.computing, nil)
		}
		a.batch, a.cyclic = a.batch[:0], false
	}
	return s
}

// maxSummaryRounds bounds the fixed-point rounds of a cycle of summaries
// (two or three suffice in practice; the bound keeps a non-monotone
// summary from looping).
const maxSummaryRounds = 8

// computeSummary walks fn's body once, reading the summaries of the local
// functions it calls as they stand.
func (a *analysis) computeSummary(fn *types.Func, decl *ast.FuncDecl) *summary {
	s := &summary{joins: map[int]bool{}, spawns: map[int]bool{}, fields: map[types.Object]int{}, adds: map[types.Object]int{}}
	sig := fn.Type().(*types.Signature)
	params := map[types.Object]int{}
	for i := range sig.Params().Len() {
		params[sig.Params().At(i)] = i
	}
	// givenBy returns where e is reached from: -1 for the receiver, a
	// parameter's index, or false for a value the body makes (c :=
	// new(call); c.wg.Add(1) in singleflight's Do counts a call's own
	// waiters).
	givenBy := func(e ast.Expr) (int, bool) {
		b := baseVar(a.info, e)
		if b == nil {
			return 0, false
		}
		if i, ok := params[b]; ok {
			return i, true
		}
		if sig.Recv() != nil && b == types.Object(sig.Recv()) {
			return -1, true
		}
		return 0, false
	}
	paramIdx := func(e ast.Expr) (int, bool) {
		if obj := rootObj(a.info, e); obj != nil {
			i, ok := params[obj]
			return i, ok
		}
		return 0, false
	}
	// signalVia notes the parameter or field e (a channel, a WaitGroup)
	// that the body signals through.
	signalVia := func(e ast.Expr) {
		obj := rootObj(a.info, e)
		if obj == nil {
			return
		}
		if i, ok := params[obj]; ok {
			s.joins[i] = true
		} else if base, ok := givenBy(e); ok && isField(obj) {
			s.fields[obj] = base
		}
	}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt:
			signalVia(n.Chan)
		case *ast.CallExpr:
			for _, i := range a.signals(n) {
				signalVia(n.Args[i])
			}
			if fn := analysisutil.Callee(a.info, n); fn != nil && fn.Pkg() == a.pass.Pkg {
				// s.report(err), a helper that sends on a field.
				if cs := a.summaryOf(fn); cs != nil {
					for f, base := range cs.fields {
						if e := callBase(n, base); e != nil {
							if b, ok := givenBy(e); ok {
								s.fields[f] = b
							}
						}
					}
					for f, base := range cs.adds {
						if e := callBase(n, base); e != nil {
							if b, ok := givenBy(e); ok {
								s.adds[f] = b
							}
						}
					}
				}
			}
			if isWaitGroupDone(a.info, n) {
				signalVia(n.Fun.(*ast.SelectorExpr).X)
			}
			if isWaitGroupAdd(a.info, n) {
				x := n.Fun.(*ast.SelectorExpr).X
				if b, ok := givenBy(x); ok && isField(rootObj(a.info, x)) {
					s.adds[rootObj(a.info, x)] = b
				}
			}
			if a.isBuiltin(n, "close") && len(n.Args) == 1 {
				signalVia(n.Args[0])
			}
		case *ast.GoStmt:
			if i, ok := paramIdx(n.Call.Fun); ok && isFuncType(sig.Params().At(i).Type()) {
				s.spawns[i] = true
			}
			if lit, ok := n.Call.Fun.(*ast.FuncLit); ok && !a.signalsAnything(lit.Body) {
				ast.Inspect(lit.Body, func(m ast.Node) bool {
					if call, ok := m.(*ast.CallExpr); ok {
						if i, ok := paramIdx(call.Fun); ok && isFuncType(sig.Params().At(i).Type()) {
							s.spawns[i] = true
						}
					}
					return true
				})
			}
		}
		return true
	})
	if spawnsAny(decl.Body) {
		// wg.Add(1); go s.loop(): the Add counts the goroutine it starts.
		clear(s.adds)
	}
	s.bound = a.isBound(decl.Body, func(obj types.Object) bool { _, ok := params[obj]; return ok || isField(obj) }, nil)
	s.signals = a.signalsAnything(decl.Body)
	return s
}

// fieldSignals returns the fields a function of this package signals
// through (summary.fields), or nil for any other callee.
func (a *analysis) fieldSignals(fn *types.Func) map[types.Object]int {
	if fn == nil || fn.Pkg() != a.pass.Pkg {
		return nil
	}
	if s := a.summaryOf(fn); s != nil {
		return s.fields
	}
	return nil
}

// signalsAnything reports whether body calls WaitGroup.Done, closes or
// sends on a channel: a goroutine that reports back (as in
// sync.WaitGroup.Go and testing.B.RunParallel) is not fire-and-forget.
func (a *analysis) signalsAnything(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SendStmt:
			found = true
		case *ast.CallExpr:
			found = isWaitGroupDone(a.info, n) || a.isBuiltin(n, "close")
			if fn := analysisutil.Callee(a.info, n); !found && fn != nil && fn.Pkg() == a.pass.Pkg {
				// g.done() in errgroup: a local helper that signals.
				if s := a.summaryOf(fn); s != nil && s.signals {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// knownJoiner reports whether fn runs its function argument in a goroutine
// that it tracks itself: errgroup.Group.Go, sync.WaitGroup.Go, the
// runtime's Scope.Go, testing's RunParallel.
func knownJoiner(fn *types.Func) bool {
	return analysisutil.IsMethod(fn, "golang.org/x/sync/errgroup", "Group", "Go") ||
		analysisutil.IsMethod(fn, "golang.org/x/sync/errgroup", "Group", "TryGo") ||
		analysisutil.IsMethod(fn, "sync", "WaitGroup", "Go") ||
		analysisutil.IsMethod(fn, "github.com/cancelcheck/cancelcheck/rt/scope", "Scope", "Go") ||
		analysisutil.IsMethod(fn, "testing", "B", "RunParallel")
}

// signals returns the argument indexes of call through which the callee
// signals (JoinsParam), from a local summary or an imported fact.
func (a *analysis) signals(call *ast.CallExpr) []int {
	fn := analysisutil.Callee(a.info, call)
	if fn == nil {
		return nil
	}
	var f JoinsParam
	return a.argIndexes(call, fn, func(s *summary) map[int]bool { return s.joins }, &f, &f.Params)
}

// spawnArgs returns the argument indexes of call that the callee runs in a
// goroutine it does not wait for (Spawns).
func (a *analysis) spawnArgs(call *ast.CallExpr) []int {
	fn := analysisutil.Callee(a.info, call)
	if fn == nil || knownJoiner(fn) {
		return nil
	}
	var f Spawns
	return a.argIndexes(call, fn, func(s *summary) map[int]bool { return s.spawns }, &f, &f.Params)
}

// argIndexes returns the parameter indexes of fn that local picks from its
// summary (a function of this package) or that fact, once imported, lists
// in *params, keeping those call actually passes.
func (a *analysis) argIndexes(call *ast.CallExpr, fn *types.Func, local func(*summary) map[int]bool, fact goanalysis.Fact, params *[]int) []int {
	var idx []int
	if fn.Pkg() == a.pass.Pkg {
		if s := a.summaryOf(fn); s != nil {
			idx = sortedKeys(local(s))
		}
	} else if a.pass.ImportObjectFact(fn.Origin(), fact) {
		idx = *params
	}
	var out []int
	for _, i := range idx {
		if i < len(call.Args) {
			out = append(out, i)
		}
	}
	return out
}

// boundCallee reports whether fn is a worker loop or watcher.
func (a *analysis) boundCallee(fn *types.Func) bool {
	if fn == nil {
		return false
	}
	if fn.Pkg() == a.pass.Pkg {
		s := a.summaryOf(fn)
		return s != nil && s.bound
	}
	return a.pass.ImportObjectFact(fn.Origin(), new(Bound))
}

// isBound reports whether body is a worker loop or a watcher: it loops
// forever (`for {}`) or over a channel, receives from a channel from
// outside inside a loop, blocks on `<-ctx.Done()` or a stop channel,
// selects on a context's Done, or (as one of its top-level statements)
// calls a bound function. outside tells which objects come from outside
// the body (parameters, captured variables, fields). Checking ctx.Err()
// in a retry loop, or calling something that does, does not make a body
// bound: the work still ends on its own, and uses the context meanwhile.
//
// A range over a channel for which perCall is true (a job channel the
// owner made for this call) binds nothing: the range ends when the owner
// closes the channel, but the work of the last jobs goes on after that, so
// such workers are bound only by a join.
func (a *analysis) isBound(body *ast.BlockStmt, outside func(types.Object) bool, perCall func(ast.Expr) bool) bool {
	for _, stmt := range body.List {
		if es, ok := stmt.(*ast.ExprStmt); ok {
			if call, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && a.boundCallee(analysisutil.Callee(a.info, call)) {
				return true
			}
		}
	}
	bound := false
	var visit func(n ast.Node, loops int)
	visit = func(n ast.Node, loops int) {
		ast.Inspect(n, func(m ast.Node) bool {
			if bound || m == nil {
				return false
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				if m.Cond == nil {
					bound = true
					return false
				}
				if m != n {
					visit(m.Cond, loops+1)
					visit(m.Body, loops+1)
					return false
				}
			case *ast.RangeStmt:
				if t := a.info.TypeOf(m.X); t != nil {
					if _, ok := t.Underlying().(*types.Chan); ok && (perCall == nil || !perCall(m.X)) {
						bound = true
						return false
					}
				}
				if m != n {
					visit(m.Body, loops+1)
					return false
				}
			case *ast.SelectStmt:
				for _, cc := range m.Body.List {
					if comm := cc.(*ast.CommClause).Comm; comm != nil && a.isDoneRecv(commRecv(comm)) {
						bound = true
						return false
					}
				}
			case *ast.ExprStmt:
				// A bare `<-ctx.Done()` or `<-stop`: a watcher.
				if u, ok := ast.Unparen(m.X).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
					if a.isDoneRecv(u) || a.outsideChan(u.X, outside) {
						bound = true
						return false
					}
				}
			case *ast.UnaryExpr:
				if loops > 0 && m.Op == token.ARROW && a.outsideChan(m.X, outside) {
					bound = true
					return false
				}
			}
			return true
		})
	}
	visit(body, 0)
	return bound
}

// isDoneRecv reports whether u is `<-X.Done()` for a context X.
func (a *analysis) isDoneRecv(u *ast.UnaryExpr) bool {
	if u == nil || u.Op != token.ARROW {
		return false
	}
	call, ok := ast.Unparen(u.X).(*ast.CallExpr)
	return ok && analysisutil.IsMethod(analysisutil.Callee(a.info, call), "context", "Context", "Done")
}

// outsideChan reports whether e is a channel from outside the body.
func (a *analysis) outsideChan(e ast.Expr, outside func(types.Object) bool) bool {
	obj := rootObj(a.info, e)
	return obj != nil && outside(obj)
}

// commRecv returns the receive expression of a select comm, or nil.
func commRecv(comm ast.Stmt) *ast.UnaryExpr {
	var e ast.Expr
	switch comm := comm.(type) {
	case *ast.ExprStmt:
		e = comm.X
	case *ast.AssignStmt:
		if len(comm.Rhs) == 1 {
			e = comm.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u
	}
	return nil
}

// rootObj returns the object at the root of a selector/index/star/unary &
// chain: x for x, x.f, x[i], *x, &x. For a field selection it returns the
// field, so that s.wg and t.wg are the same "place" by type.
func rootObj(info *types.Info, e ast.Expr) types.Object { return chainObj(info, e, true) }

// chainObj walks a selector, index or dereference chain (&s.a.b[i]) from
// its outside in: it stops at the field the outermost selector names (b)
// when atField is set, else at the variable the chain starts from (s).
func chainObj(info *types.Info, e ast.Expr, atField bool) types.Object {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return info.ObjectOf(x)
		case *ast.SelectorExpr:
			sel, ok := info.Selections[x]
			switch {
			case !ok:
				return info.ObjectOf(x.Sel) // a qualified identifier
			case atField && sel.Kind() == types.FieldVal:
				return sel.Obj()
			case atField:
				return info.ObjectOf(x.Sel)
			}
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// spawnsAny reports whether body starts a goroutine or hands a function
// literal to a call (a spawner: srv.startGoRoutine(func() {...})).
func spawnsAny(body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			found = true
		case *ast.CallExpr:
			for _, arg := range n.Args {
				if _, isLit := ast.Unparen(arg).(*ast.FuncLit); isLit {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// callBase returns the expression of call that a callee's summary base
// names: the receiver (sel.X) for -1, else the argument at that index; nil
// when there is none.
func callBase(call *ast.CallExpr, base int) ast.Expr {
	if base < 0 {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	if base < len(call.Args) {
		return call.Args[base]
	}
	return nil
}

// baseVar returns the variable a selector, index or dereference chain
// starts from (s in s.a.b[i]), or nil.
func baseVar(info *types.Info, e ast.Expr) types.Object { return chainObj(info, e, false) }

func isField(obj types.Object) bool {
	v, ok := obj.(*types.Var)
	return ok && v.IsField()
}

func isFuncType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func isWaitGroupDone(info *types.Info, call *ast.CallExpr) bool {
	_, ok := call.Fun.(*ast.SelectorExpr)
	return ok && analysisutil.IsMethod(analysisutil.Callee(info, call), "sync", "WaitGroup", "Done")
}

func (a *analysis) isBuiltin(call *ast.CallExpr, name string) bool {
	return analysisutil.IsBuiltin(a.info, call, name)
}
