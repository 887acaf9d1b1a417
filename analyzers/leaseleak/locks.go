package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

const semaphorePkg = "golang.org/x/sync/semaphore"

// lockKind says how a lock-like lease is released.
type lockKind struct {
	release     string // Unlock, RUnlock, Release
	noun, verb  string
	consequence string
	// pair is the receiver's type for a pair of methods of a user type
	// (knowledge.ReceiverPairs); nil for the kinds below.
	pair *types.Named
}

var (
	lockMutex    = &lockKind{release: "Unlock", noun: "mutex", verb: "unlocked", consequence: "the next Lock blocks forever"}
	lockRead     = &lockKind{release: "RUnlock", noun: "read lock", verb: "released", consequence: "every later Lock blocks forever"}
	lockWeighted = &lockKind{release: "Release", noun: "semaphore weight", verb: "released", consequence: "later Acquire calls block forever once the weight runs out"}
)

// lockOf returns the lock kind acquired by call, or nil.
func lockOf(info *types.Info, call *ast.CallExpr) *lockKind {
	fn := analysisutil.Callee(info, call)
	switch {
	case fn == nil:
		return nil
	case analysisutil.IsMethod(fn, "sync", "Mutex", "Lock"), analysisutil.IsMethod(fn, "sync", "RWMutex", "Lock"):
		return lockMutex
	case analysisutil.IsMethod(fn, "sync", "RWMutex", "RLock"):
		return lockRead
	case analysisutil.IsMethod(fn, semaphorePkg, "Weighted", "Acquire"):
		return lockWeighted
	}
	return pairOf(fn)
}

// lockOf returns the lock kind acquired by call: a built-in kind, a pair
// of the knowledge table, or a pair of methods of a type of this package
// whose bodies take and give back the same field (ownership's
// PairedRelease: s.acquire(ctx) sending on s.sem, s.release() receiving).
func (s *state) lockOf(call *ast.CallExpr) *lockKind {
	info := s.pass.TypesInfo
	if k := lockOf(info, call); k != nil {
		return k
	}
	fn := analysisutil.Callee(info, call)
	if fn == nil {
		return nil
	}
	rel := s.own.PairedRelease(fn)
	if rel == nil {
		return nil
	}
	if k, ok := s.inferredPairs[fn.Origin()]; ok {
		return k
	}
	named := recvNamed(fn.Type().(*types.Signature))
	k := &lockKind{release: rel.Name(), noun: named.Obj().Name(), verb: "given back", pair: named}
	if s.inferredPairs == nil {
		s.inferredPairs = make(map[*types.Func]*lockKind)
	}
	s.inferredPairs[fn.Origin()] = k
	return k
}

// pairKinds caches the kinds of receiver pairs by their acquiring method,
// so that a kind compares equal to itself across calls.
var pairKinds sync.Map // *types.Func -> *lockKind

// pairOf returns the kind of a receiver pair acquired by fn: a method of a
// named type other than sync's and semaphore's whose name the knowledge
// table pairs with a release method the type also has (TryAcquire and
// Release), taking nothing, or its bool or error result, back.
func pairOf(fn *types.Func) *lockKind {
	fn = fn.Origin()
	if k, ok := pairKinds.Load(fn); ok {
		return k.(*lockKind)
	}
	k := newPairKind(fn)
	pairKinds.Store(fn, k)
	return k
}

func newPairKind(fn *types.Func) *lockKind {
	rel, ok := knowledge.ReceiverPairs[fn.Name()]
	sig, _ := fn.Type().(*types.Signature)
	if !ok || sig == nil || sig.Recv() == nil || fn.Pkg() == nil {
		return nil
	}
	switch fn.Pkg().Path() {
	case "sync", "internal/sync", semaphorePkg:
		return nil // sync's kinds are above; internal/sync's mutex returns locked on purpose
	}
	named := recvNamed(sig)
	if named == nil {
		return nil
	}
	switch res := sig.Results(); {
	case res.Len() == 0:
	case res.Len() == 1 && (analysisutil.IsError(res.At(0).Type()) || isBoolType(res.At(0).Type())):
	default:
		return nil // it hands something out: a value lease, not a pair
	}
	m, _, _ := types.LookupFieldOrMethod(named, true, fn.Pkg(), rel)
	rf, ok := m.(*types.Func)
	if !ok || rf.Type().(*types.Signature).Params().Len() != 0 {
		return nil
	}
	return &lockKind{release: rel, noun: named.Obj().Name(), verb: "given back", pair: named}
}

// recvNamed returns the named type of a method's receiver, or nil.
func recvNamed(sig *types.Signature) *types.Named { return analysisutil.NamedOf(sig.Recv().Type()) }

func isBoolType(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// voidCall reports whether call has no result.
func voidCall(info *types.Info, call *ast.CallExpr) bool {
	t, ok := info.TypeOf(call).(*types.Tuple)
	return ok && t.Len() == 0
}

// isRelease reports whether call releases a lock of kind k.
func (k *lockKind) isRelease(info *types.Info, call *ast.CallExpr) bool {
	fn := analysisutil.Callee(info, call)
	if fn == nil || fn.Name() != k.release {
		return false
	}
	if k.pair != nil {
		sig, _ := fn.Type().(*types.Signature)
		return sig != nil && sig.Recv() != nil && recvNamed(sig) == k.pair
	}
	switch k {
	case lockWeighted:
		return analysisutil.IsMethod(fn, semaphorePkg, "Weighted", "Release")
	default:
		return analysisutil.IsMethod(fn, "sync", "Mutex", k.release) || analysisutil.IsMethod(fn, "sync", "RWMutex", k.release)
	}
}

// keyOf returns the objects that spell a lock expression (s.mu -> [s, mu]),
// or nil when it involves calls or indexing.
func keyOf(info *types.Info, e ast.Expr) []types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Uses[e]; o != nil {
			return []types.Object{o}
		}
	case *ast.SelectorExpr:
		if _, ok := info.Selections[e]; !ok {
			if o := info.Uses[e.Sel]; o != nil {
				return []types.Object{o} // pkg.mu
			}
			return nil
		}
		if x := keyOf(info, e.X); x != nil {
			return append(x, info.Uses[e.Sel])
		}
	case *ast.UnaryExpr:
		return keyOf(info, e.X)
	case *ast.StarExpr:
		return keyOf(info, e.X)
	}
	return nil
}

func recvOf(call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.X
	}
	return nil
}

// checkLock handles a lock acquisition in node n; it reports whether call
// acquires a lock.
func (f *function) checkLock(b *cfg.Block, i int, n ast.Node, call *ast.CallExpr, lhs []ast.Expr) bool {
	info := f.info()
	k := f.s.lockOf(call)
	if k == nil {
		return false
	}
	// A mutex is locked by a statement; a weight, or a pair whose acquire
	// reports failure, by an assignment of its error; a pair whose acquire
	// answers whether it took something, by the condition that asks.
	boolCond := false
	switch n := n.(type) {
	case *ast.ExprStmt:
		if k.pair != nil && !voidCall(info, call) {
			return true // its error or answer is dropped: nothing to follow
		}
	case *ast.AssignStmt:
		if k != lockWeighted && (k.pair == nil || voidCall(info, call) || isBool(info, call)) {
			return true
		}
	case ast.Expr:
		if base, _ := stripNot(n); k.pair == nil || base != call || !isBool(info, call) {
			return true
		}
		boolCond = true
	default:
		return true
	}
	recv := recvOf(call)
	if recv == nil {
		return true
	}
	key := keyOf(info, recv)
	if key == nil {
		return true
	}
	var errObj types.Object
	if len(lhs) == 1 {
		if id, ok := lhs[0].(*ast.Ident); ok && id.Name != "_" {
			errObj = info.ObjectOf(id)
		}
	}
	unlocker := func(e ast.Expr) bool {
		// A method value or function of this package that unlocks,
		// referring to the lock's owner: return tx.unlockRelease.
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		return ok && fn.Pkg() == f.s.pass.Pkg && f.s.own.Unlocks(fn) && analysisutil.ReferencesObject(info, sel.X, key[0])
	}
	// The release method itself as a value (release: r.sem.Release in a
	// result): whoever holds it gives the lease back.
	releaseValue := func(sel *ast.SelectorExpr) bool {
		fn, ok := info.Uses[sel.Sel].(*types.Func)
		if !ok || fn.Name() != k.release || !slices.Equal(keyOf(info, sel.X), key) {
			return false
		}
		cur, ok := f.cur.FindNode(sel)
		if !ok {
			return false
		}
		c, isCall := cur.Parent().Node().(*ast.CallExpr)
		return !isCall || c.Fun != sel // a call is judged below
	}
	// Semaphore weights are counted, not paired: Release(n) gives back
	// this Acquire(ctx, n) only with the same weight expression.
	sameWeight := func(rel *ast.CallExpr) bool {
		if k != lockWeighted {
			return true
		}
		return len(call.Args) == 2 && len(rel.Args) == 1 &&
			types.ExprString(call.Args[1]) == types.ExprString(rel.Args[0])
	}
	var releases func(root ast.Node, explicitOnly bool) bool
	releases = func(root ast.Node, explicitOnly bool) bool {
		found := false
		ast.Inspect(root, func(x ast.Node) bool {
			if found {
				return false
			}
			if explicitOnly && root == f.body {
				switch x := x.(type) {
				case *ast.GoStmt:
					// An unlock by another goroutine (a lock used
					// to wait for it) is not this function's own.
					return false
				case *ast.DeferStmt:
					return true // deferred closures are its own
				case *ast.FuncLit:
					// A callback's unlock runs elsewhere, unless
					// the literal is deferred or called here.
					if !deferredOrCalled(stackOf(f, x)) {
						return false
					}
				}
			}
			if !explicitOnly {
				switch x := x.(type) {
				case *ast.SelectorExpr:
					if unlocker(x) || releaseValue(x) {
						found = true
						return false
					}
				case *ast.AssignStmt:
					// s.lockHeld = true: the owner records that it
					// holds the lock and releases it later.
					if len(x.Lhs) == 1 && len(x.Rhs) == 1 {
						if sel, ok := x.Lhs[0].(*ast.SelectorExpr); ok && analysisutil.ReferencesObject(info, sel.X, key[0]) {
							if id, ok := x.Rhs[0].(*ast.Ident); ok && id.Name == "true" {
								found = true
								return false
							}
						}
					}
				}
			}
			c, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			if k.isRelease(info, c) {
				if r := recvOf(c); r != nil && slices.Equal(keyOf(info, r), key) && sameWeight(c) {
					found = true
				}
				return !found
			}
			if explicitOnly {
				return true
			}
			// A closure of this function that unlocks the same lock:
			// doErr := func(err error) { ...; s.mu.Unlock(); ... }.
			if lit := f.closureOf(c.Fun); lit != nil && releases(lit.Body, true) {
				found = true
				return false
			}
			// A helper of this package that unlocks, given the lock's
			// owner: s.unlockAndNotify(), release(&s.mu).
			fn := analysisutil.Callee(info, c)
			if fn == nil || fn.Pkg() != f.s.pass.Pkg || !f.s.own.Unlocks(fn) {
				return true
			}
			if analysisutil.ReferencesObject(info, c, key[0]) {
				found = true
			}
			return !found
		})
		return found
	}
	// Only functions that release this lock themselves somewhere are held
	// to releasing it on every path; the others hand it to their caller.
	if !releases(f.body, true) {
		return true
	}
	// A function that unlocks before it first locks was called with the
	// lock held and locks again to give it back (Unlock; wait; Lock), and
	// a deferred unlock registered before this Lock covers it.
	for c := range f.cur.Preorder((*ast.DeferStmt)(nil)) {
		if c.Node().Pos() < call.Pos() && releases(c.Node(), true) {
			return true
		}
	}
	for c := range f.cur.Preorder((*ast.CallExpr)(nil)) {
		if c.Node().Pos() >= call.Pos() {
			break
		}
		switch x := c.Node().(type) {
		case *ast.CallExpr:
			if f.s.lockOf(x) == k {
				if r := recvOf(x); r != nil && slices.Equal(keyOf(info, r), key) {
					goto search // locked first: not a re-acquisition
				}
			}
			if k.isRelease(info, x) {
				if r := recvOf(x); r != nil && slices.Equal(keyOf(info, r), key) {
					return true
				}
			}
		}
	}
search:
	w := &walker{
		stable: f.stableConds(),
		info:   info,
		start:  b,
		index:  i,
		acq:    n,
		disposes: func(x ast.Node) bool {
			// Reassigning the owner (y = y.next) makes the name denote
			// another lock: stop following this one.
			return releases(x, false) || assigns(info, x, key[0])
		},
		assignsErr: func(x ast.Node) bool { return assigns(info, x, errObj) },
		failed: func(cond ast.Expr, truth bool) bool {
			if boolCond {
				base, neg := stripNot(cond)
				return base == call && truth == neg // the call answered false
			}
			return impliesFailed(info, cond, truth, errObj, nil)
		},
		released:   func(ast.Expr, bool) bool { return false },
		tagCases:   f.tagCases(),
		consistent: f.holdFlags(n, f.consistentConds(n)),
	}
	out := w.search()
	if k.pair != nil {
		// A pair on an object the function made and returns travels with
		// it: the caller gives it back (p := new(Pinner); p.Pin(x); return p).
		if v, ok := key[0].(*types.Var); ok && v.Pos() >= f.body.Pos() && v.Pos() < f.body.End() {
			out.leaks = slices.DeleteFunc(out.leaks, func(ret *ast.ReturnStmt) bool {
				return analysisutil.ReferencesObject(info, ret, v)
			})
		}
	}
	if len(out.leaks) == 0 && !out.loop {
		return true
	}
	name := types.ExprString(recv)
	if !out.loop && f.sameLockLeak(name, out.leaks) {
		return true // Lock; for { ...; return; Unlock; wait; Lock }: reported at the first Lock
	}
	var where string
	var related []analysis.RelatedInformation
	for _, ret := range out.leaks {
		related = append(related, analysis.RelatedInformation{
			Pos: ret.Pos(), End: ret.End(),
			Message: fmt.Sprintf("this return is reached with %s still held", name),
		})
	}
	if len(out.leaks) > 0 {
		where = "on the path through the return" + f.condition(out.leaks[0])
		if m := len(out.leaks) - 1; m == 1 {
			where += " and one other return"
		} else if m > 1 {
			where += fmt.Sprintf(" and %d other returns", m)
		}
	}
	if out.loop {
		if where != "" {
			where += ", nor "
		}
		where += "before the loop acquires it again"
	}
	verb := map[*lockKind]string{lockMutex: "locked", lockRead: "read-locked", lockWeighted: "acquired"}[k]
	msg := fmt.Sprintf("%s is %s here but the %s is not %s %s, so %s", name, verb, k.noun, k.verb, where, k.consequence)
	if k.pair != nil {
		msg = fmt.Sprintf("%s.%s takes from the %s here, and the function gives it back with %s.%s elsewhere, but not %s: what it took is never given back on that path",
			name, analysisutil.Callee(info, call).Name(), k.noun, name, k.release, where)
	}
	d := analysis.Diagnostic{Pos: call.Pos(), End: call.End(), Message: msg, Related: related}
	if fix, ok := f.lockFix(out, call, recv, key, k); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	f.s.rep.Report(d)
	return true
}

// holdFlags adds to conds the local bools set to true right after the
// acquiring statement n (before anything branches, but for error checks
// that return): `mu.Lock(); held = true` records the hold, `fd, err =
// os.Open(p); if err != nil { return err }; didOpen = true` the opening, and
// a later `if held { mu.Unlock() }` is taken.
func (f *function) holdFlags(n ast.Node, conds map[string]bool) map[string]bool {
	c, ok := f.cur.FindNode(n)
	if !ok {
		return conds
	}
	for sib, ok := c.NextSibling(); ok; sib, ok = sib.NextSibling() {
		as, isAssign := sib.Node().(*ast.AssignStmt)
		if !isAssign {
			switch st := sib.Node().(type) {
			case *ast.ExprStmt:
				continue
			case *ast.IfStmt:
				// if err != nil { return err }: the failure leaves, and
				// the flag set after it records the acquisition.
				if st.Else == nil && len(st.Body.List) > 0 {
					if _, ret := st.Body.List[len(st.Body.List)-1].(*ast.ReturnStmt); ret {
						continue
					}
				}
			}
			break // a branch, a return, a declaration: stop looking
		}
		if as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			continue
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		v, isVar := f.info().Uses[id].(*types.Var)
		if !ok || !isVar || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
			continue
		}
		if tv, ok := f.info().Types[as.Rhs[0]]; ok && tv.Value != nil && tv.Value.String() == "true" {
			if conds == nil {
				conds = make(map[string]bool)
			}
			conds[id.Name] = true
			conds["!"+id.Name] = false
		}
	}
	return conds
}

// sameLockLeak records that lock leaks through rets and reports whether an
// earlier acquisition of it was already reported for all of them.
func (f *function) sameLockLeak(lock string, rets []*ast.ReturnStmt) bool {
	if f.lockLeaks == nil {
		f.lockLeaks = make(map[string]map[*ast.ReturnStmt]bool)
	}
	seen := f.lockLeaks[lock]
	if seen == nil {
		seen = make(map[*ast.ReturnStmt]bool)
		f.lockLeaks[lock] = seen
	}
	all := true
	for _, r := range rets {
		all = all && seen[r]
		seen[r] = true
	}
	return all
}

// lockFix releases the lock before each leaking return whose results do not
// read through the lock's owner.
func (f *function) lockFix(out *outcome, call *ast.CallExpr, recv ast.Expr, key []types.Object, k *lockKind) (analysis.SuggestedFix, bool) {
	if out.loop || len(out.leaks) == 0 || k == lockWeighted {
		return analysis.SuggestedFix{}, false
	}
	pass := f.s.pass
	src := analysisutil.ReadSource(pass, call.Pos())
	if src == nil {
		return analysis.SuggestedFix{}, false
	}
	release := types.ExprString(recv) + "." + k.release + "()"
	var edits []analysis.TextEdit
	for _, ret := range out.leaks {
		if out.failed[ret] || analysisutil.ReferencesObject(f.info(), ret, key[0]) {
			return analysis.SuggestedFix{}, false
		}
		edit, ok := f.releaseBefore(src, ret, release)
		if !ok {
			return analysis.SuggestedFix{}, false
		}
		edits = append(edits, edit)
	}
	return analysis.SuggestedFix{Message: "Call " + release + " before returning", TextEdits: edits}, true
}

// stackOf returns the cursor of n within the function.
func stackOf(f *function, n ast.Node) inspector.Cursor {
	c, _ := f.cur.FindNode(n)
	return c
}

// deferredOrCalled reports whether the function literal at c is deferred,
// or called where it stands.
func deferredOrCalled(c inspector.Cursor) bool {
	p := c.Parent()
	call, ok := p.Node().(*ast.CallExpr)
	if !ok || call.Fun != c.Node() {
		return false
	}
	return true
}

// releaseBefore returns the edit that puts release on its own line just
// before ret, or false when ret does not sit directly in a statement list
// (a release there would need braces).
func (f *function) releaseBefore(src []byte, ret *ast.ReturnStmt, release string) (analysis.TextEdit, bool) {
	c, ok := f.cur.FindNode(ret)
	if !ok {
		return analysis.TextEdit{}, false
	}
	switch c.Parent().Node().(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
	default:
		return analysis.TextEdit{}, false
	}
	indent := analysisutil.Indent(f.s.pass.Fset, src, ret.Pos())
	return analysis.TextEdit{Pos: ret.Pos(), End: ret.Pos(), NewText: []byte(release + "\n" + indent)}, true
}

// closureOf returns the function literal that fun, a local variable of the
// function or of one around it, is bound to: `doErr := func(err error)
// {...}` and no other assignment to doErr. Otherwise nil.
func (f *function) closureOf(fun ast.Expr) *ast.FuncLit {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := f.info().Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	if f.closures == nil {
		f.closures = f.boundClosures()
	}
	return f.closures[v]
}

// boundClosures maps the local variables assigned exactly once, to a
// function literal, in the outermost function around f (a callback may
// call its parent's doErr).
func (f *function) boundClosures() map[types.Object]*ast.FuncLit {
	outer := f.cur
	for e := range f.cur.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		outer = e
	}
	lits := make(map[types.Object]*ast.FuncLit)
	count := make(map[types.Object]int)
	for c := range outer.Preorder((*ast.AssignStmt)(nil)) {
		as := c.Node().(*ast.AssignStmt)
		for i, lhs := range as.Lhs {
			lid, ok := lhs.(*ast.Ident)
			if !ok {
				continue
			}
			v := f.info().ObjectOf(lid)
			if v == nil {
				continue
			}
			count[v]++
			if len(as.Rhs) == len(as.Lhs) {
				if lit, ok := ast.Unparen(as.Rhs[i]).(*ast.FuncLit); ok {
					lits[v] = lit
				}
			}
		}
	}
	for v := range lits {
		if count[v] != 1 {
			delete(lits, v)
		}
	}
	return lits
}
