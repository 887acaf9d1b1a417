package ownership

import (
	"go/ast"
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// PairedRelease returns the method of fn's receiver type that gives back
// what fn takes from its receiver, when the bodies of the two say so: fn
// sends on a channel field of the receiver (a buffered channel used as a
// semaphore: `s.sem <- struct{}{}`, alone or as a select case beside
// ctx.Done) or locks a mutex field and returns holding it, and the other
// method, taking no parameters, receives from that channel (`<-s.sem`) or
// unlocks that mutex, and does nothing the other way round. Such helpers
// (acquire/release, lock/unlock, enter/leave) are a pair of the type
// whatever their names. It returns nil for a method of another package,
// for one that takes nothing, and for a channel the package fills with
// tokens in a loop (a pool, where the receive takes and the send gives
// back).
func (r *Result) PairedRelease(fn *types.Func) *types.Func {
	fn = fn.Origin()
	if fn.Pkg() != r.pkg {
		return nil
	}
	r.pairs.once.Do(func() { r.pairs.m = r.inferPairs() })
	return r.pairs.m[fn]
}

// slotUse is what one method does with the fields of its receiver: the
// channel fields it sends on or receives from as a bare statement or
// select case, and the mutex fields it locks or unlocks (outside function
// literals, which may run later or elsewhere).
type slotUse struct {
	takes, gives map[*types.Var]bool
}

func (r *Result) inferPairs() map[*types.Func]*types.Func {
	pairs := make(map[*types.Func]*types.Func)
	byType := make(map[*types.Named][]*types.Func)
	uses := make(map[*types.Func]*slotUse)
	pooled := make(map[*types.Var]bool)
	var bodies []*ast.BlockStmt
	for _, file := range r.pass.Files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			bodies = append(bodies, fd.Body)
			if fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) != 1 {
				continue
			}
			fn, ok := r.info.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			recv, ok := r.info.Defs[fd.Recv.List[0].Names[0]].(*types.Var)
			if !ok {
				continue
			}
			named := analysisutil.NamedOf(recv.Type())
			if named == nil || !holdsSlots(named) {
				continue
			}
			if u := r.slotUses(fd.Body, recv); u != nil {
				uses[fn] = u
				byType[named] = append(byType[named], fn)
			}
		}
	}
	if len(byType) == 0 {
		return pairs
	}
	for _, b := range bodies {
		r.markPools(b, pooled)
	}
	for _, fns := range byType {
		for _, acq := range fns {
			a := uses[acq]
			taken := 0
			for f := range a.takes {
				if !a.gives[f] && !pooled[f] {
					taken++
				}
			}
			if taken == 0 || !pairResults(acq) {
				continue
			}
		candidates:
			for _, rel := range fns {
				if rel == acq || rel.Type().(*types.Signature).Params().Len() != 0 {
					continue
				}
				g := uses[rel]
				for f := range a.takes {
					if a.gives[f] || pooled[f] {
						continue
					}
					if !g.gives[f] || g.takes[f] {
						continue candidates
					}
				}
				if pairs[acq] == nil || rel.Pos() < pairs[acq].Pos() {
					pairs[acq] = rel
				}
			}
		}
	}
	return pairs
}

// holdsSlots reports whether named is a struct with a channel or mutex
// field: only such a type's methods can take and give back a slot.
func holdsSlots(named *types.Named) bool {
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		t := st.Field(i).Type()
		if _, ok := t.Underlying().(*types.Chan); ok {
			return true
		}
		if analysisutil.IsNamed(t, "sync", "Mutex") || analysisutil.IsNamed(t, "sync", "RWMutex") {
			return true
		}
	}
	return false
}

// pairResults reports whether fn returns what an acquiring half of a pair
// returns: nothing, an error, or whether it took the slot.
func pairResults(fn *types.Func) bool {
	res := fn.Type().(*types.Signature).Results()
	switch {
	case res.Len() == 0:
		return true
	case res.Len() == 1:
		t := res.At(0).Type()
		if analysisutil.IsErrorInterface(t) {
			return true
		}
		b, ok := t.Underlying().(*types.Basic)
		return ok && b.Info()&types.IsBoolean != 0
	}
	return false
}

// slotUses collects what body does with recv's channel and mutex fields,
// or nil when it does nothing with them.
func (r *Result) slotUses(body *ast.BlockStmt, recv *types.Var) *slotUse {
	u := &slotUse{takes: make(map[*types.Var]bool), gives: make(map[*types.Var]bool)}
	field := func(e ast.Expr) *types.Var {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		if id, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || r.info.Uses[id] != recv {
			return nil
		}
		v, ok := r.info.Uses[sel.Sel].(*types.Var)
		if !ok || !v.IsField() {
			return nil
		}
		return v
	}
	chanField := func(e ast.Expr) *types.Var {
		if v := field(e); v != nil {
			if _, ok := v.Type().Underlying().(*types.Chan); ok {
				return v
			}
		}
		return nil
	}
	bareRecv := func(e ast.Expr) {
		if un, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && un.Op.String() == "<-" {
			if v := chanField(un.X); v != nil {
				u.gives[v] = true
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.SendStmt:
			if v := chanField(n.Chan); v != nil {
				u.takes[v] = true
			}
		case *ast.ExprStmt:
			bareRecv(n.X)
		case *ast.CallExpr:
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			v := field(sel.X)
			fn, _ := r.info.Uses[sel.Sel].(*types.Func)
			if v == nil || fn == nil {
				return true
			}
			switch {
			case analysisutil.IsMethod(fn, "sync", "Mutex", "Lock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Lock"):
				u.takes[v] = true
			case isLockRelease(fn):
				u.gives[v] = true
			}
		}
		return true
	})
	if len(u.takes) == 0 && len(u.gives) == 0 {
		return nil
	}
	return u
}

// markPools marks the channel fields body sends on inside a loop, outside
// a select: a channel filled with tokens, whose receive takes one.
func (r *Result) markPools(body *ast.BlockStmt, pooled map[*types.Var]bool) {
	var loop func(n ast.Node, inLoop bool)
	loop = func(root ast.Node, inLoop bool) {
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt:
				if n != root {
					loop(n.Body, true)
					return false
				}
			case *ast.RangeStmt:
				if n != root {
					loop(n.Body, true)
					return false
				}
			case *ast.SelectStmt:
				return false
			case *ast.SendStmt:
				if !inLoop {
					return true
				}
				if sel, ok := ast.Unparen(n.Chan).(*ast.SelectorExpr); ok {
					if v, ok := r.info.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
						pooled[v] = true
					}
				}
			}
			return true
		})
	}
	loop(body, false)
}
