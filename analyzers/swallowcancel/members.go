package swallowcancel

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

// addGroupMembers makes group goroutines of the package's functions that
// only a group literal calls, returning what they return:
//
//	g.Go(func() error { return s.worker(ctx, jobs) })
//
// worker's error is the literal's, so it reaches the group's Wait as the
// literal's would, and returning nil on the group's Done is the same
// idiom (checkDone asks). Only there: an error that is a cancellation may
// come from another context than the group's (a closed client's), and then
// the group goes on without the worker. A function other code calls, or
// that other packages can name, keeps its own callers.
func (s *state) addGroupMembers(runs map[*ast.FuncLit]*goroutines.GroupRun) {
	type site struct {
		lit *ast.FuncLit
		run *goroutines.GroupRun
	}
	sites := make(map[*types.Func][]site)
	for lit, r := range runs {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt:
				if len(n.Results) != 1 {
					return true
				}
				call, ok := ast.Unparen(n.Results[0]).(*ast.CallExpr)
				if !ok {
					return true
				}
				if fn := analysisutil.Callee(s.info, call); fn != nil && fn.Pkg() == s.pass.Pkg && !fn.Exported() {
					fn = fn.Origin()
					sites[fn] = append(sites[fn], site{lit, r})
				}
			}
			return true
		})
	}
	if len(sites) == 0 {
		return
	}
	uses := make(map[*types.Func]int, len(sites))
	for _, obj := range s.info.Uses {
		if fn, ok := obj.(*types.Func); ok {
			if _, cand := sites[fn.Origin()]; cand {
				uses[fn.Origin()]++
			}
		}
	}
	for fn, ss := range sites {
		f := s.res.DeclOf(fn)
		if f == nil || uses[fn] != len(ss) || analysisutil.ErrorResult(f.Sig) < 0 {
			continue
		}
		lit := s.res.FuncOf(ss[0].lit)
		if lit == nil {
			continue
		}
		s.member[f.Node] = true
		s.runs[f.Node] = ss[0].run
		s.owner[f.Node] = lit.Parent
		unread := true
		for _, x := range ss {
			unread = unread && x.run.Unread
		}
		s.unread[f.Node] = unread
	}
}

// addCallbacks records the function literals handed, as an argument, to a
// call that is given the same context they wait on:
//
//	r.List(ctx, t, func(id ID) error {
//		select {
//		case <-ctx.Done():
//			return nil
//		...
//
// The literal's nil goes back to List, which holds ctx and reports its end
// itself; the literal's caller is not the one that could take it for
// completed work. A callee known to leave its context unused (a blank
// context parameter) reports nothing, so it does not count.
func (s *state) addCallbacks(ins *inspector.Inspector) {
	for cur := range ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		var lits []*ast.FuncLit
		var ctxs []string
		for _, a := range call.Args {
			a = ast.Unparen(a)
			if lit, ok := a.(*ast.FuncLit); ok {
				lits = append(lits, lit)
			} else if analysisutil.IsContext(s.info.TypeOf(a)) {
				ctxs = append(ctxs, types.ExprString(a))
			}
		}
		if len(lits) == 0 || len(ctxs) == 0 || !s.res.BoundCall(call) {
			continue
		}
		for _, lit := range lits {
			s.callbackCtx[lit] = ctxs
		}
	}
}

// callbackOf reports whether f is a literal given to a context-bound call
// together with the context x.
func (s *state) callbackOf(f *ctxflow.Func, x ast.Expr) bool {
	ctxs := s.callbackCtx[f.Node]
	want := types.ExprString(x)
	for _, c := range ctxs {
		if c == want {
			return true
		}
	}
	return false
}

// selfCanceled reports whether the error the if statement at cur tests
// comes from a call given a context the function derived itself
// (context.WithCancel and kin) and cancels itself on some path other than
// a deferred call: the function stops the call early by canceling
// (`cancel()` once a callback found what it looked for), so a
// context.Canceled out of it is, or may be, that stop and not a caller's
// cancellation.
//
//	listCtx, cancel := context.WithCancel(ctx)
//	defer cancel()
//	err = s.List(listCtx, func(id ID) error { ...; k = key; cancel(); return nil })
//	if err == context.Canceled {
//		err = nil
//	}
func (s *state) selfCanceled(cur inspector.Cursor, f *ctxflow.Func, n *ast.IfStmt, errExpr ast.Expr) bool {
	id, ok := ast.Unparen(errExpr).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := s.info.ObjectOf(id).(*types.Var)
	if !ok {
		return false
	}
	_, call := sourceAssign(cur, n, v, s.info)
	if call == nil {
		return false
	}
	ctxs := make(map[types.Object]bool)
	for _, a := range call.Args {
		if cid, ok := ast.Unparen(a).(*ast.Ident); ok && analysisutil.IsContext(s.info.TypeOf(a)) {
			ctxs[s.info.ObjectOf(cid)] = true
		}
	}
	if len(ctxs) == 0 {
		return false
	}
	// The cancel functions that come with those contexts.
	cancels := make(map[types.Object]bool)
	ast.Inspect(f.Body, func(m ast.Node) bool {
		as, ok := m.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
			return true
		}
		c, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := analysisutil.Callee(s.info, c)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || !strings.HasPrefix(fn.Name(), "With") {
			return true
		}
		lc, ok1 := as.Lhs[0].(*ast.Ident)
		lk, ok2 := as.Lhs[1].(*ast.Ident)
		if ok1 && ok2 && ctxs[s.info.ObjectOf(lc)] && lk.Name != "_" {
			cancels[s.info.ObjectOf(lk)] = true
		}
		return true
	})
	if len(cancels) == 0 {
		return false
	}
	called := false
	ast.Inspect(f.Body, func(m ast.Node) bool {
		if called {
			return false
		}
		switch m := m.(type) {
		case *ast.DeferStmt:
			if fid, ok := ast.Unparen(m.Call.Fun).(*ast.Ident); ok && cancels[s.info.ObjectOf(fid)] {
				return false // defer cancel(): the release on the way out
			}
		case *ast.CallExpr:
			if fid, ok := ast.Unparen(m.Fun).(*ast.Ident); ok && cancels[s.info.ObjectOf(fid)] {
				called = true
			}
		}
		return !called
	})
	return called
}

// loopIsLastAct reports whether f returns nothing, loop walks a
// collection and, once it is done, f reaches its end without calling
// anything but loggers: a failure logged inside the loop reaches no caller
// as success, since nothing after the loop records the work as done and no
// result says so.
func (s *state) loopIsLastAct(f *ctxflow.Func, loop ast.Stmt) bool {
	if f.Sig.Results().Len() != 0 {
		return false
	}
	// Over a collection: a range over a slice, array, map or string ends
	// with it; a stream or an open-ended loop may not.
	rs, ok := loop.(*ast.RangeStmt)
	if !ok {
		return false
	}
	switch s.info.TypeOf(rs.X).Underlying().(type) {
	case *types.Slice, *types.Array, *types.Map, *types.Basic:
	case *types.Pointer: // a pointer to an array
	default:
		return false
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return false
	}
	p, ok := g.LoopDone(loop)
	if !ok {
		return false
	}
	work := func(n ast.Node) bool {
		return flow.Mentions(n, func(m ast.Node) bool {
			call, ok := m.(*ast.CallExpr)
			return ok && !analysisutil.IsLogCall(s.info, call)
		})
	}
	_, found := g.Reaches(p, work, nil)
	return !found
}

// fallbackAnswer reports whether ret, returning a nil error in result
// idx, returns a stand-in made in the branch that starts at from: a call
// or a non-empty composite literal, or a variable declared in the branch.
// A variable from before the branch (the results gathered so far) is no
// stand-in: returning it on a timeout passes partial work off as done.
func (s *state) fallbackAnswer(f *ctxflow.Func, ret *ast.ReturnStmt, idx int, from token.Pos) bool {
	if len(ret.Results) != f.Sig.Results().Len() {
		return false
	}
	found := false
	for i, r := range ret.Results {
		if i == idx {
			continue
		}
		switch r := ast.Unparen(r).(type) {
		case *ast.CallExpr:
			if tv, ok := s.info.Types[r.Fun]; ok && tv.IsType() {
				return false // a conversion of what came before
			}
			found = true
		case *ast.CompositeLit:
			if len(r.Elts) > 0 {
				found = true
			}
		case *ast.UnaryExpr:
			if cl, ok := ast.Unparen(r.X).(*ast.CompositeLit); ok && r.Op == token.AND && len(cl.Elts) > 0 {
				found = true
			}
		case *ast.Ident:
			if v, ok := s.info.ObjectOf(r).(*types.Var); ok && !isNilExpr(s.info, r) {
				if v.Pos() < from || v.Pos() > ret.Pos() {
					return false
				}
				found = true
			}
		}
	}
	return found
}

// shadowedParent is a context parameter that the function replaced by its
// own child and then canceled itself: `ctx, cancel :=
// context.WithCancel(ctx)` and a `cancel()` that runs before the test (not
// the deferred one). From then on a context.Canceled may be the
// function's own stop or the caller's cancellation, and the caller's
// context, whose Err would tell them apart, can no longer be reached.
type shadowedParent struct {
	param  *types.Var
	derive *ast.AssignStmt
	cancel *ast.CallExpr
}

// parentShadowed returns the shadowed parent for the test node at in f,
// or nil: a cancel call of such a child reaches at on some path.
func (s *state) parentShadowed(f *ctxflow.Func, at ast.Node) *shadowedParent {
	params := map[types.Object]bool{}
	for i := range f.Sig.Params().Len() {
		if p := f.Sig.Params().At(i); analysisutil.IsContext(p.Type()) {
			params[p] = true
		}
	}
	if len(params) == 0 {
		return nil
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return nil
	}
	cancels := map[types.Object]*ast.AssignStmt{}
	var sp *shadowedParent
	// A cancel in a literal (a callback that stops the listing once it has
	// what it wants) runs where the literal is called: from the point of
	// the statement holding the literal on.
	var lit *ast.FuncLit
	var visit func(m ast.Node) bool
	visit = func(m ast.Node) bool {
		if sp != nil {
			return false
		}
		switch m := m.(type) {
		case *ast.FuncLit:
			if lit == nil {
				lit = m
				ast.Inspect(m.Body, visit)
				lit = nil
				return false
			}
		case *ast.DeferStmt:
			return false // defer cancel(): the release on the way out
		case *ast.AssignStmt:
			if len(m.Lhs) != 2 || len(m.Rhs) != 1 {
				return true
			}
			c, ok := ast.Unparen(m.Rhs[0]).(*ast.CallExpr)
			if !ok || len(c.Args) == 0 {
				return true
			}
			fn := analysisutil.Callee(s.info, c)
			if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || !strings.HasPrefix(fn.Name(), "With") {
				return true
			}
			lc, ok1 := ast.Unparen(m.Lhs[0]).(*ast.Ident)
			lk, ok2 := ast.Unparen(m.Lhs[1]).(*ast.Ident)
			arg, ok3 := ast.Unparen(c.Args[0]).(*ast.Ident)
			if ok1 && ok2 && ok3 && lk.Name != "_" && params[s.info.ObjectOf(lc)] && s.info.ObjectOf(lc) == s.info.ObjectOf(arg) {
				cancels[s.info.ObjectOf(lk)] = m
			}
		case *ast.CallExpr:
			fid, ok := ast.Unparen(m.Fun).(*ast.Ident)
			if !ok {
				return true
			}
			as := cancels[s.info.ObjectOf(fid)]
			if as == nil {
				return true
			}
			var at0 ast.Node = m
			if lit != nil {
				at0 = lit
			}
			p, ok := g.Locate(at0)
			if !ok {
				return true
			}
			if _, reaches := g.Reaches(p, func(n ast.Node) bool { return n == at }, nil); reaches {
				lc := ast.Unparen(as.Lhs[0]).(*ast.Ident)
				sp = &shadowedParent{param: s.info.ObjectOf(lc).(*types.Var), derive: as, cancel: m}
			}
		}
		return true
	}
	ast.Inspect(f.Body, visit)
	return sp
}
