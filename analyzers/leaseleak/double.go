package leaseleak

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// unlockOf returns the lock kind that call releases when it is a
// sync.Mutex or RWMutex Unlock/RUnlock, or nil.
func unlockOf(info *types.Info, call *ast.CallExpr) *lockKind {
	fn := analysisutil.Callee(info, call)
	switch {
	case fn == nil:
		return nil
	case analysisutil.IsMethod(fn, "sync", "Mutex", "Unlock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Unlock"):
		return lockMutex
	case analysisutil.IsMethod(fn, "sync", "RWMutex", "RUnlock"):
		return lockRead
	}
	return nil
}

// checkDoubleUnlock reports an explicit (write) Unlock (statement n, b.Nodes[i])
// followed, on some path without a new Lock, by a second Unlock of the same
// mutex or by a deferred Unlock registered before it: unlocking an unlocked
// mutex is a fatal error that no recover catches.
func (f *function) checkDoubleUnlock(b *cfg.Block, i int, n ast.Node, call *ast.CallExpr) {
	info := f.info()
	k := unlockOf(info, call)
	if k != lockMutex {
		return // read locks are counted: RLock twice, RUnlock twice is fine
	}
	if _, ok := n.(*ast.ExprStmt); !ok {
		return
	}
	recv := recvOf(call)
	if recv == nil {
		return
	}
	key := keyOf(info, recv)
	if key == nil {
		return
	}
	sameKey := func(c *ast.CallExpr) bool {
		r := recvOf(c)
		return r != nil && slices.Equal(keyOf(info, r), key)
	}
	// relocks reports whether x locks the mutex again (or calls anything
	// that might: a helper of this package that unlocks may lock too, and
	// a function value may do anything with it).
	relocks := func(x ast.Node) bool {
		if assigns(info, x, key[0]) {
			return true // the name now denotes another mutex
		}
		found := false
		ast.Inspect(x, func(y ast.Node) bool {
			if found {
				return false
			}
			if _, ok := y.(*ast.FuncLit); ok {
				return false
			}
			c, ok := y.(*ast.CallExpr)
			if !ok {
				return true
			}
			// Lock, TryLock, RLock...: any other method of the mutex.
			if sameKey(c) && unlockOf(info, c) == nil {
				if fn := analysisutil.Callee(info, c); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "sync" {
					found = true
				}
			}
			if fn := analysisutil.Callee(info, c); fn != nil && fn.Pkg() == f.s.pass.Pkg && analysisutil.ReferencesObject(info, c, key[0]) {
				found = true // a helper given the owner may lock it
			}
			return !found
		})
		return found
	}
	isUnlock := func(x ast.Node) bool {
		es, ok := x.(*ast.ExprStmt)
		if !ok {
			return false
		}
		c, ok := es.X.(*ast.CallExpr)
		return ok && unlockOf(info, c) == k && sameKey(c)
	}
	if f.handsOverLock(key, sameKey) {
		return
	}
	// A deferred unlock registered before n, in a block around n.
	var deferred *ast.DeferStmt
	c, ok := f.cur.FindNode(n)
	if !ok {
		return
	}
	for e := range c.Enclosing((*ast.BlockStmt)(nil)) {
		blk := e.Node().(*ast.BlockStmt)
		for _, st := range blk.List {
			if st.Pos() >= n.Pos() {
				break
			}
			ds, ok := st.(*ast.DeferStmt)
			if !ok {
				continue
			}
			if unlockOf(info, ds.Call) == k && sameKey(ds.Call) {
				deferred = ds
			}
		}
		if blk == f.body {
			break
		}
	}
	w := &walker{
		stable:       f.stableConds(),
		info:         info,
		start:        b,
		index:        i,
		acq:          n,
		disposes:     relocks,
		assignsErr:   func(ast.Node) bool { return false },
		failed:       func(ast.Expr, bool) bool { return false },
		released:     func(ast.Expr, bool) bool { return false },
		tagCases:     f.tagCases(),
		consistent:   f.consistentConds(n),
		hit:          isUnlock,
		quietReturns: deferred == nil,
	}
	out := w.search()
	name := types.ExprString(recv)
	const fatal = "fatal error: sync: unlock of unlocked mutex"
	for _, h := range out.hits {
		f.s.rep.Report(analysis.Diagnostic{
			Pos: h.Pos(), End: h.End(),
			Message: fmt.Sprintf("%s is unlocked here although it was already unlocked on the way and not locked again, so the program dies with %q", name, fatal),
			Related: []analysis.RelatedInformation{{Pos: n.Pos(), End: n.End(), Message: "first unlocked here"}},
		})
	}
	if deferred != nil && len(out.leaks) > 0 {
		ret := out.leaks[0]
		f.s.rep.Report(analysis.Diagnostic{
			Pos: n.Pos(), End: n.End(),
			Message: fmt.Sprintf("%s is unlocked here and again by the deferred %s when the function returns through the return%s, so the program dies with %q",
				name, k.release, f.condition(ret), fatal),
			Related: []analysis.RelatedInformation{
				{Pos: deferred.Pos(), End: deferred.End(), Message: "the deferred unlock"},
				{Pos: ret.Pos(), End: ret.End(), Message: "returns with the mutex unlocked"},
			},
		})
	}
}

// handsOverLock reports whether a function literal in f locks the mutex and
// never unlocks it: a goroutine that takes the lock and leaves it held for
// this function, signalled through a channel (`go func() { mu.Lock(); ...;
// close(done) }()` then `<-done; mu.Unlock()`). Which Unlock pairs with
// which Lock then depends on the goroutines' order.
func (f *function) handsOverLock(key []types.Object, sameKey func(*ast.CallExpr) bool) bool {
	info := f.info()
	for c := range f.cur.Preorder((*ast.FuncLit)(nil)) {
		locks, unlocks := false, false
		ast.Inspect(c.Node().(*ast.FuncLit).Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !sameKey(call) {
				return true
			}
			fn := analysisutil.Callee(info, call)
			switch {
			case analysisutil.IsMethod(fn, "sync", "Mutex", "Lock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Lock"):
				locks = true
			case unlockOf(info, call) == lockMutex:
				unlocks = true
			}
			return true
		})
		if locks && !unlocks {
			return true
		}
	}
	return false
}
