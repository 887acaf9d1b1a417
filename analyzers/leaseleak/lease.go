package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

// lease is one acquisition held in a variable.
type lease struct {
	f      *function
	acq    *ownership.Acquisition
	call   *ast.CallExpr
	stmt   ast.Node // the acquiring statement
	block  *cfg.Block
	index  int
	define bool
	id     *ast.Ident // the variable
	obj    types.Object
	errObj types.Object
	// okObj is the bool result of a comma-ok acquisition (conn, ok :=
	// u.Upgrade(w, r)) that reports failure with a nil lease (okFailed).
	okObj types.Object
	objs  map[types.Object]bool // obj and its aliases
}

func (l *lease) kind() *ownership.Kind { return l.acq.Kind }

// what names the acquired object: "the cancel function of
// context.WithTimeout", "the file f from os.Open".
func (l *lease) what() string {
	k := l.kind()
	if k.Call {
		return "the " + k.Noun + " of " + l.acq.Name
	}
	name := ""
	if l.id != nil {
		name = " " + l.id.Name
		if k.Field != "" && k.Field != "*" {
			name = " " + l.id.Name + "." + k.Field
		}
	}
	return "the " + k.Noun + name + " from " + l.acq.Name
}

// successReturns reports whether a return is reachable from a discarding
// acquisition on a path where it succeeded.
func (l *lease) successReturns() bool {
	info := l.f.info()
	w := &walker{
		stable:     l.f.stableConds(),
		info:       info,
		start:      l.block,
		index:      l.index,
		acq:        l.stmt,
		disposes:   func(ast.Node) bool { return false },
		assignsErr: func(n ast.Node) bool { return assigns(info, n, l.errObj) },
		failed: func(cond ast.Expr, truth bool) bool {
			return impliesFailed(info, cond, truth, l.errObj, nil)
		},
		released: func(ast.Expr, bool) bool { return false },
		tagCases: l.f.tagCases(),
	}
	return len(w.search().leaks) > 0
}

func (l *lease) reportDiscarded(blank *ast.Ident) {
	k := l.kind()
	pos, end := l.call.Pos(), l.call.End()
	msg := fmt.Sprintf("%s %s discarded, so %s can never be %s and %s", l.what(), k.Is(), k.It(), k.Verb, k.Consequence)
	d := analysis.Diagnostic{Pos: pos, End: end, Message: msg}
	// For a discarded cancel function: name it and defer it.
	if blank != nil && k.Call && l.define && !l.inLoop() {
		if fix, ok := l.cancelFix(blank); ok {
			d.SuggestedFixes = []analysis.SuggestedFix{fix}
		}
	}
	l.f.s.rep.Report(d)
}

func (l *lease) check() {
	f := l.f
	info := f.info()
	l.objs = f.s.own.Aliases(f.body, map[types.Object]bool{l.obj: true}, l.kind())
	if loop := l.loopOf(); loop != nil {
		if ds := l.deferredInLoop(loop); ds != nil {
			l.reportDeferInLoop(ds)
			return
		}
	}
	// A named result holding the lease is returned by every bare return.
	namedResult := false
	if f.ftype.Results != nil {
		for _, fld := range f.ftype.Results.List {
			for _, n := range fld.Names {
				if l.objs[info.Defs[n]] {
					namedResult = true
				}
			}
		}
	}
	// A deferred closure registered earlier that releases the variable
	// (defer func() { if f != nil { f.Close() } }()) covers every return.
	// One registered later that releases it only when the function fails
	// is judged at the returns (failureOnly).
	errs := l.namedErrors()
	var onFailure map[*ast.DeferStmt]bool
	for c := range f.cur.Preorder((*ast.DeferStmt)(nil)) {
		ds := c.Node().(*ast.DeferStmt)
		if fn, _ := enclosingFunc(c); fn != f.cur.Node() {
			continue
		}
		if ds.Pos() < l.stmt.Pos() {
			if f.s.own.UseOf(ds, l.objs, l.kind()) != ownership.Borrow {
				return
			}
			continue
		}
		if lit, ok := ast.Unparen(ds.Call.Fun).(*ast.FuncLit); ok && len(errs) > 0 && l.failureOnly(lit, errs) {
			if onFailure == nil {
				onFailure = map[*ast.DeferStmt]bool{}
			}
			onFailure[ds] = true
		}
	}
	fired := l.firedTimer()
	registered := l.registrations()
	held := map[ast.Node]bool{}
	w := &walker{
		enters: fired.enters,
		stable: f.stableConds(),
		info:   info,
		start:  l.block,
		index:  l.index,
		acq:    l.stmt,
		disposes: func(n ast.Node) bool {
			if ret, ok := n.(*ast.ReturnStmt); ok && len(ret.Results) == 0 && namedResult {
				return true
			}
			if l.kind() == ownership.KindBody && l.readsToEOF(n) {
				return true
			}
			if fired.disposes(n) {
				return true
			}
			if ds, ok := n.(*ast.DeferStmt); ok && onFailure[ds] {
				return false // judged at the returns, below
			}
			if st, ok := n.(ast.Stmt); ok && registered[st] {
				return false // registered for the function's own run
			}
			u := f.s.own.UseOf(n, l.objs, l.kind())
			if u == ownership.HandOff && f.s.own.LentOnly(n, l.objs, l.kind()) && l.releasedAfter(n) {
				return false // lent to a callback; the function still closes it
			}
			if u == ownership.HandOff {
				// w := &watcher{cancel: cancel}: the value the function
				// made holds the lease from here; it is judged as a
				// lease of its own, once.
				if h := l.heldBy(n); h != nil {
					if !held[n] {
						held[n] = true
						h.check()
					}
					return true
				}
			}
			return u != ownership.Borrow
		},
		assignsErr: func(n ast.Node) bool { return assigns(info, n, l.errObj) },
		failed: func(cond ast.Expr, truth bool) bool {
			return impliesFailed(info, cond, truth, l.errObj, l.objs) || okFailed(info, cond, truth, l.okObj)
		},
		released: func(cond ast.Expr, truth bool) bool {
			return l.kind().NextCloses && isNextCall(info, cond, l.objs, truth)
		},
		tagCases:   f.tagCases(),
		infeasible: f.infeasibleConds(),
		consistent: l.deadlineConds(f.holdFlags(l.stmt, f.consistentConds(l.stmt))),
		// Overwriting the only variable that holds the lease loses it.
		hit: func(n ast.Node) bool {
			return len(l.objs) == 1 && assigns(info, n, l.obj) && !l.stillHeld(n)
		},
	}
	out := w.search()
	if len(onFailure) > 0 {
		out.leaks = l.nilReturnsPast(onFailure, out.leaks)
		out.loop = false
	}
	if len(out.leaks) == 0 && !out.loop && len(out.hits) == 0 {
		return
	}
	l.report(out)
}

// timerFired answers, for a time.Timer lease, where the timer has fired:
// after a receive from its C completed, the runtime has dropped it, so
// nothing is left to stop. (A ticker goes on ticking; it is not one.)
type timerFired struct {
	l     *lease
	comms map[ast.Stmt]bool // the communications of the function's selects
}

// firedTimer returns the fired-timer rule for l; its methods report
// nothing for leases other than a time.Timer.
func (l *lease) firedTimer() *timerFired {
	if l.kind() != ownership.KindTimer {
		return nil
	}
	t := &timerFired{l: l, comms: map[ast.Stmt]bool{}}
	for c := range l.f.cur.Preorder((*ast.CommClause)(nil)) {
		if cc := c.Node().(*ast.CommClause); cc.Comm != nil {
			t.comms[cc.Comm] = true
		}
	}
	return t
}

// receives reports whether the statement s receives from the timer's C.
func (t *timerFired) receives(s ast.Node) bool {
	sel, ok := ast.Unparen(analysisutil.Received(s)).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" {
		return false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	return ok && t.l.objs[t.l.f.info().Uses[id]]
}

// disposes reports whether n is a bare receive from the timer's C (not a
// select's communication, which completes only in its case).
func (t *timerFired) disposes(n ast.Node) bool {
	if t == nil {
		return false
	}
	if s, ok := n.(ast.Stmt); ok && t.comms[s] {
		return false
	}
	return t.receives(n)
}

// enters reports whether b is the body of a select case that received
// from the timer's C.
func (t *timerFired) enters(b *cfg.Block) bool {
	if t == nil || b.Kind != cfg.KindSelectCaseBody {
		return false
	}
	cc, ok := b.Stmt.(*ast.CommClause)
	return ok && cc.Comm != nil && t.receives(cc.Comm)
}

// deadlineConds adds to conds what a timeout lease says about its context:
// after `ctx, cancel = context.WithTimeout(...)`, a test `_, ok :=
// ctx.Deadline()` finds a deadline, so a branch taken when there is none
// (where code adds a default timeout) is not on the lease's paths.
func (l *lease) deadlineConds(conds map[string]bool) map[string]bool {
	fn := l.acq.Fn
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" ||
		(fn.Name() != "WithTimeout" && fn.Name() != "WithDeadline" && fn.Name() != "WithTimeoutCause" && fn.Name() != "WithDeadlineCause") {
		return conds
	}
	as, ok := l.stmt.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 2 {
		return conds
	}
	ctx := types.ExprString(as.Lhs[0])
	info := l.f.info()
	names := make(map[string]int) // how often each name is declared
	var oks []*ast.Ident
	for c := range l.f.cur.Preorder((*ast.AssignStmt)(nil), (*ast.Ident)(nil)) {
		switch n := c.Node().(type) {
		case *ast.Ident:
			if info.Defs[n] != nil {
				names[n.Name]++
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != 2 || len(n.Rhs) != 1 {
				continue
			}
			call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
			if !ok || len(call.Args) != 0 {
				continue
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Deadline" || !analysisutil.IsContext(info.TypeOf(sel.X)) || types.ExprString(sel.X) != ctx {
				continue
			}
			if id, ok := n.Lhs[1].(*ast.Ident); ok && id.Name != "_" {
				oks = append(oks, id)
			}
		}
	}
	for _, id := range oks {
		if names[id.Name] != 1 {
			continue // the name is ambiguous in this function
		}
		if conds == nil {
			conds = make(map[string]bool)
		}
		conds[id.Name] = true
		conds["!"+id.Name] = false
	}
	return conds
}

// stillHeld reports whether the assignment n to the lease variable keeps the
// lease in it (f = f, f = wrap(f)).
func (l *lease) stillHeld(n ast.Node) bool {
	as, ok := n.(*ast.AssignStmt)
	if !ok {
		return true
	}
	for _, r := range as.Rhs {
		if analysisutil.ReferencesObject(l.f.info(), r, l.obj) {
			return true
		}
	}
	return false
}

// assigns reports whether n assigns to obj.
func assigns(info *types.Info, n ast.Node, obj types.Object) bool {
	if obj == nil {
		return false
	}
	var lhs []ast.Expr
	switch n := n.(type) {
	case *ast.AssignStmt:
		lhs = n.Lhs
	case *ast.ValueSpec:
		for _, id := range n.Names {
			lhs = append(lhs, id)
		}
	case *ast.RangeStmt:
		lhs = []ast.Expr{n.Key, n.Value}
	}
	for _, e := range lhs {
		if id, ok := e.(*ast.Ident); ok && info.ObjectOf(id) == obj {
			return true
		}
	}
	return false
}

// isNextCall reports whether cond with value truth means rows.Next()
// returned false.
func isNextCall(info *types.Info, cond ast.Expr, objs map[types.Object]bool, truth bool) bool {
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return isNextCall(info, c.X, objs, !truth)
		}
	case *ast.CallExpr:
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Next" && sel.Sel.Name != "NextResultSet") || truth {
			return false
		}
		id, ok := ast.Unparen(sel.X).(*ast.Ident)
		return ok && objs[info.Uses[id]]
	}
	return false
}

// tagCases returns the case expressions of tag switches in the function.
func (f *function) tagCases() map[ast.Expr]bool {
	m := make(map[ast.Expr]bool)
	for c := range f.cur.Preorder((*ast.SwitchStmt)(nil)) {
		sw := c.Node().(*ast.SwitchStmt)
		if sw.Tag == nil {
			continue
		}
		for _, cc := range sw.Body.List {
			for _, e := range cc.(*ast.CaseClause).List {
				m[e] = true
			}
		}
	}
	return m
}

// inLoop reports whether the acquisition is inside a loop of its function.
func (l *lease) inLoop() bool { return l.loopOf() != nil }

// loopOf returns the innermost loop of the function around the acquisition.
func (l *lease) loopOf() ast.Stmt {
	c, ok := l.f.cur.FindNode(l.stmt)
	if !ok {
		return nil
	}
	return analysisutil.EnclosingLoop(c)
}

func (l *lease) report(out *outcome) {
	k := l.kind()
	var where string
	var related []analysis.RelatedInformation
	for _, ret := range out.leaks {
		related = append(related, analysis.RelatedInformation{
			Pos: ret.Pos(), End: ret.End(),
			Message: "this return is reached without the " + k.Noun + " being " + k.Verb,
		})
	}
	if len(out.leaks) > 0 {
		where = "on the path through the return" + l.f.condition(out.leaks[0])
		if n := len(out.leaks) - 1; n == 1 {
			where += " and one other return"
		} else if n > 1 {
			where += fmt.Sprintf(" and %d other returns", n)
		}
	}
	if len(out.hits) > 0 {
		for _, h := range out.hits {
			related = append(related, analysis.RelatedInformation{
				Pos: h.Pos(), End: h.End(),
				Message: fmt.Sprintf("%s is overwritten here while it still holds the %s", l.id.Name, k.Noun),
			})
		}
		if where != "" {
			where += ", nor "
		}
		where += "before " + l.id.Name + " is overwritten"
	}
	if out.loop {
		if loop := l.loopOf(); loop != nil {
			body := loopBody(loop)
			related = append(related, analysis.RelatedInformation{
				Pos: body.Rbrace, End: body.Rbrace + 1,
				Message: "the loop goes round again here and acquires a new " + k.Noun,
			})
		}
		if where != "" {
			where += ", nor "
		}
		where += "before the loop acquires the next one"
	}
	// One variable that takes its lease from either of two acquisitions
	// (if d > 0 { ctx, cancel = WithTimeout(...) } else { ctx, cancel =
	// WithCancel(...) }) and loses it through the same returns is one bug.
	key := fmt.Sprintf("%p %s %v %v", l.obj, k.Noun, out.loop, len(out.hits))
	for _, ret := range out.leaks {
		key += fmt.Sprintf(" %d", ret.Pos())
	}
	if l.f.reported[key] {
		return
	}
	if l.f.reported == nil {
		l.f.reported = make(map[string]bool)
	}
	l.f.reported[key] = true
	msg := fmt.Sprintf("%s %s not %s %s, so %s", l.what(), k.Is(), k.Verb, where, k.Consequence)
	if sel, store := l.storedInField(); sel != nil && !out.loop && len(out.hits) == 0 && l.storeBeforeAll(store, out.leaks) {
		// c.conn = conn, where nothing of the package releases c.conn:
		// the value keeps it, and nobody ever lets it go.
		owner := types.TypeString(deref(l.f.info().TypeOf(sel.X)), types.RelativeTo(l.f.s.pass.Pkg))
		msg = fmt.Sprintf("%s is stored in %s, which nothing in this package %s (%s has no method that releases it), so %s",
			l.what(), types.ExprString(sel), verbPresent(k), owner, k.Consequence)
		related = []analysis.RelatedInformation{{Pos: store.Pos(), End: store.End(), Message: "stored here"}}
	}
	d := analysis.Diagnostic{Pos: l.call.Pos(), End: l.call.End(), Message: msg, Related: related}
	if fix, ok := l.fix(out); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	l.f.s.rep.Report(d)
}

func loopBody(loop ast.Stmt) *ast.BlockStmt {
	switch l := loop.(type) {
	case *ast.ForStmt:
		return l.Body
	case *ast.RangeStmt:
		return l.Body
	}
	return nil
}

// condition describes why the path reaches ret: " when ctx.Err() != nil",
// " in case <-ctx.Done()", or "".
func (f *function) condition(ret *ast.ReturnStmt) string {
	c, ok := f.cur.FindNode(ret)
	if !ok {
		return ""
	}
	child := c.Node()
	for p := c.Parent(); ; p = p.Parent() {
		switch n := p.Node().(type) {
		case *ast.FuncDecl, *ast.FuncLit, nil:
			return ""
		case *ast.IfStmt:
			if n.Body == child {
				return " when " + types.ExprString(n.Cond)
			}
			if n.Else == child {
				return " when !(" + types.ExprString(n.Cond) + ")"
			}
		case *ast.CommClause:
			if n.Comm == nil {
				return " in the default case of the select"
			}
			return " in case " + strings.TrimSpace(nodeString(n.Comm))
		case *ast.CaseClause:
			if n.List == nil {
				return " in the default case"
			}
			parts := make([]string, len(n.List))
			for i, e := range n.List {
				parts[i] = types.ExprString(e)
			}
			return " in case " + strings.Join(parts, ", ")
		}
		child = p.Node()
	}
}

func nodeString(n ast.Node) string {
	switch n := n.(type) {
	case *ast.ExprStmt:
		return types.ExprString(n.X)
	case *ast.AssignStmt:
		lhs := make([]string, len(n.Lhs))
		for i, e := range n.Lhs {
			lhs[i] = types.ExprString(e)
		}
		return strings.Join(lhs, ", ") + " " + n.Tok.String() + " " + types.ExprString(n.Rhs[0])
	case *ast.SendStmt:
		return types.ExprString(n.Chan) + " <- " + types.ExprString(n.Value)
	}
	return ""
}

// handedOff reports whether the function hands the lease to another owner
// anywhere (path-insensitively).
func (l *lease) handedOff() bool {
	for _, b := range l.f.cfg.Blocks {
		for _, n := range b.Nodes {
			if l.f.s.own.UseOf(n, l.objs, l.kind()) == ownership.HandOff {
				return true
			}
		}
	}
	return false
}

// storedInField returns the field selector x.f to which the function
// assigns the lease, when x's type does not release what that field holds
// (no release-named method, and the package never releases the field): or
// nil.
func (l *lease) storedInField() (*ast.SelectorExpr, ast.Stmt) {
	info := l.f.info()
	var found *ast.SelectorExpr
	var store ast.Stmt
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || found != nil || len(as.Lhs) != len(as.Rhs) {
			return found == nil
		}
		for i, r := range as.Rhs {
			id, ok := ast.Unparen(r).(*ast.Ident)
			if !ok || !l.objs[info.Uses[id]] {
				continue
			}
			sel, ok := ast.Unparen(as.Lhs[i]).(*ast.SelectorExpr)
			if !ok {
				continue
			}
			if s := info.Selections[sel]; s != nil && s.Kind() == types.FieldVal && l.f.s.own.UseOf(as, l.objs, l.kind()) == ownership.Borrow {
				found, store = sel, as
			}
		}
		return found == nil
	})
	return found, store
}

// storeBeforeAll reports whether every path from the acquisition to each
// of the leaking returns passes the statement store.
func (l *lease) storeBeforeAll(store ast.Stmt, leaks []*ast.ReturnStmt) bool {
	g := l.f.s.paths.Func(l.f.cur.Node())
	if g == nil || len(leaks) == 0 {
		return false
	}
	acq, ok := g.Locate(l.stmt)
	if !ok {
		return false
	}
	for _, ret := range leaks {
		if _, ok := g.Reaches(acq.Next(), func(n ast.Node) bool { return n == ret }, func(n ast.Node) bool { return n == store }); ok {
			return false
		}
	}
	return true
}

// verbPresent is the present tense of k's release for messages: "closes",
// "calls", "stops".
func verbPresent(k *ownership.Kind) string {
	switch k.Verb {
	case "closed":
		return "closes"
	case "called":
		return "calls"
	case "stopped":
		return "stops"
	case "ended":
		return "ends"
	case "released":
		return "releases"
	}
	return "releases"
}

// kept reports whether the lease outlives the function in a value that
// still uses it, though no owner that releases it takes it: it is stored
// (a field, an element, a package variable, a send: storesLease), or given
// to a call whose result the function returns or stores (s, err :=
// newSession(conn); return s, nil). Releasing it on the way out would break
// that value, so no fix is offered.
func (l *lease) kept() bool {
	info := l.f.info()
	holds := map[*ast.CallExpr]bool{}
	kept := false
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		if kept {
			return false
		}
		if l.storesLease(n) {
			if _, isRet := n.(*ast.ReturnStmt); !isRet {
				kept = true
				return false
			}
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		lends := false
		for _, a := range call.Args {
			if id, ok := ast.Unparen(a).(*ast.Ident); ok && l.objs[info.Uses[id]] {
				lends = true
			}
		}
		if lends {
			if r, ok := info.TypeOf(call).(*types.Tuple); !ok || r.Len() > 0 {
				holds[call] = true
			}
		}
		return true
	})
	if kept || len(holds) == 0 {
		return kept
	}
	// The locals the lending calls' results go to, and whether any of them
	// (or the call itself) is returned or stored.
	vars := map[types.Object]bool{}
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Rhs) == 1 {
				if c, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok && holds[c] {
					for _, lhs := range n.Lhs {
						if id, ok := lhs.(*ast.Ident); ok && id.Name != "_" {
							if o := info.ObjectOf(id); o != nil && !analysisutil.IsError(o.Type()) {
								vars[o] = true
							}
						}
					}
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if c, ok := ast.Unparen(r).(*ast.CallExpr); ok && holds[c] {
					kept = true
				}
			}
		}
		return !kept
	})
	if kept || len(vars) == 0 {
		return kept
	}
	ast.Inspect(l.f.body, func(n ast.Node) bool {
		if kept {
			return false
		}
		switch n := n.(type) {
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if id, ok := ast.Unparen(r).(*ast.Ident); ok && vars[info.Uses[id]] {
					kept = true
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, r := range n.Rhs {
					if id, ok := ast.Unparen(r).(*ast.Ident); ok && vars[info.Uses[id]] {
						if _, local := n.Lhs[i].(*ast.Ident); !local {
							kept = true
						}
					}
				}
			}
		}
		return true
	})
	return kept
}

// fix returns the suggested fix: a deferred release right after the
// acquisition (or its error check) when the function never hands the
// lease off and the acquisition is not in a loop; otherwise a release
// before each leaking return, when that is safe.
func (l *lease) fix(out *outcome) (analysis.SuggestedFix, bool) {
	k := l.kind()
	if k.Fix == "" || l.id == nil || len(out.hits) > 0 || l.acq.MayBeNil {
		// A lease the acquirer may return as nil needs a nil check
		// before its release: left to the author.
		return analysis.SuggestedFix{}, false
	}
	if l.kept() {
		// Stored in a field, or in a value the function returns: a
		// release on the way out would close what the value still uses.
		return analysis.SuggestedFix{}, false
	}
	release := fmt.Sprintf(k.Fix, l.id.Name)
	if !l.inLoop() && !l.handedOff() {
		return l.deferFix(release)
	}
	return l.exitFix(out, release)
}

// deferFix inserts "defer release" after the acquisition, or after the
// error check that follows it.
func (l *lease) deferFix(release string) (analysis.SuggestedFix, bool) {
	pass := l.f.s.pass
	after, ok := l.insertionPoint()
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	src := analysisutil.ReadSource(pass, after.Pos())
	if src == nil {
		return analysis.SuggestedFix{}, false
	}
	indent := analysisutil.Indent(pass.Fset, src, after.Pos())
	edits := []analysis.TextEdit{afterLine(pass, after, indent+"defer "+release)}
	// A later `defer release` in the same function moves up: delete it.
	for c := range l.f.cur.Preorder((*ast.DeferStmt)(nil)) {
		ds := c.Node().(*ast.DeferStmt)
		if ds.Pos() < after.End() || types.ExprString(ds.Call) != release {
			continue
		}
		if _, ok := c.Parent().Node().(*ast.BlockStmt); !ok {
			continue
		}
		if fn, _ := enclosingFunc(c); fn != l.f.cur.Node() {
			continue // a nested function's defer
		}
		tf := pass.Fset.File(ds.Pos())
		start := tf.LineStart(tf.Line(ds.Pos()))
		end := ds.End()
		if line := tf.Line(ds.End()); line < tf.LineCount() {
			end = tf.LineStart(line + 1)
		}
		if strings.TrimSpace(string(src[tf.Offset(start):tf.Offset(ds.Pos())])) != "" {
			continue // not alone on its line
		}
		edits = append(edits, analysis.TextEdit{Pos: start, End: end})
	}
	return analysis.SuggestedFix{
		Message:   "Defer " + release + " after the acquisition",
		TextEdits: edits,
	}, true
}

// insertionPoint returns the statement after which a deferred release can
// go: the acquisition, or the `if err != nil { return ... }` right after
// it. It fails when the acquisition is not a statement of a block, or when
// the lease may be nil on error and no check follows.
func (l *lease) insertionPoint() (ast.Stmt, bool) {
	stmt, ok := l.stmt.(ast.Stmt)
	if !ok {
		return nil, false
	}
	c, ok := l.f.cur.FindNode(stmt)
	if !ok {
		return nil, false
	}
	blk, ok := c.Parent().Node().(*ast.BlockStmt)
	if !ok {
		return nil, false
	}
	for i, s := range blk.List {
		if s != stmt {
			continue
		}
		if l.acq.Err < 0 || !l.kind().NilOnError {
			if l.acq.Err >= 0 && i+1 < len(blk.List) && l.isErrCheck(blk.List[i+1]) {
				return blk.List[i+1], true
			}
			return stmt, true
		}
		if i+1 < len(blk.List) && l.isErrCheck(blk.List[i+1]) {
			return blk.List[i+1], true
		}
		return nil, false
	}
	return nil, false
}

// isErrCheck reports whether s is `if err != nil { ...; return ... }`
// without an else, for the acquisition's error.
func (l *lease) isErrCheck(s ast.Stmt) bool {
	ifs, ok := s.(*ast.IfStmt)
	if !ok || ifs.Init != nil || ifs.Else != nil || l.errObj == nil || len(ifs.Body.List) == 0 {
		return false
	}
	if !impliesFailed(l.f.info(), ifs.Cond, true, l.errObj, nil) {
		return false
	}
	switch last := ifs.Body.List[len(ifs.Body.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return last.Tok == token.CONTINUE || last.Tok == token.BREAK
	}
	return false
}

// exitFix inserts the release before each leaking return, and at the end of
// the loop body when the loop leaks, when each of those places can see the
// variable and is never reached when the acquisition failed.
func (l *lease) exitFix(out *outcome, release string) (analysis.SuggestedFix, bool) {
	pass := l.f.s.pass
	src := analysisutil.ReadSource(pass, l.call.Pos())
	if src == nil {
		return analysis.SuggestedFix{}, false
	}
	var edits []analysis.TextEdit
	var loop ast.Stmt
	if out.loop {
		loop = l.loopOf()
		if loop == nil {
			return analysis.SuggestedFix{}, false
		}
	}
	for _, ret := range out.leaks {
		if loop != nil && (ret.Pos() < loop.Pos() || ret.Pos() >= loop.End()) {
			continue // after the loop: covered by the release at the end of the body
		}
		if out.failed[ret] || !l.visibleAt(ret.Pos()) || l.usesLease(ret) {
			return analysis.SuggestedFix{}, false
		}
		edit, ok := l.f.releaseBefore(src, ret, release)
		if !ok {
			return analysis.SuggestedFix{}, false
		}
		edits = append(edits, edit)
	}
	if loop != nil {
		body := loopBody(loop)
		// Every way round: continue statements of this loop, and the end
		// of the body.
		c, ok := l.f.cur.FindNode(body)
		if !ok {
			return analysis.SuggestedFix{}, false
		}
		for bc := range c.Preorder((*ast.BranchStmt)(nil), (*ast.FuncLit)(nil), (*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.SwitchStmt)(nil), (*ast.SelectStmt)(nil)) {
			if br, isBr := bc.Node().(*ast.BranchStmt); isBr && (br.Tok == token.CONTINUE || br.Tok == token.BREAK || br.Tok == token.GOTO) {
				ok = false // a jump would skip the release: too subtle to fix
			}
		}
		if !ok || body.Lbrace > l.stmt.Pos() || len(body.List) == 0 {
			return analysis.SuggestedFix{}, false
		}
		last := body.List[len(body.List)-1]
		if _, isRet := last.(*ast.ReturnStmt); isRet {
			return analysis.SuggestedFix{}, false
		}
		if !l.visibleAt(last.End()) {
			return analysis.SuggestedFix{}, false
		}
		indent := analysisutil.Indent(pass.Fset, src, last.Pos())
		edits = append(edits, analysis.TextEdit{Pos: last.End(), End: last.End(), NewText: []byte("\n" + indent + release)})
	}
	if len(edits) == 0 {
		return analysis.SuggestedFix{}, false
	}
	return analysis.SuggestedFix{
		Message:   "Call " + release + " on each path that leaks it",
		TextEdits: edits,
	}, true
}

// visibleAt reports whether the lease variable's name denotes it at pos.
func (l *lease) visibleAt(pos token.Pos) bool {
	file := analysisutil.FileOf(l.f.s.pass, pos)
	if file == nil {
		return false
	}
	scope := l.f.info().Scopes[file].Innermost(pos)
	if scope == nil {
		return false
	}
	_, obj := scope.LookupParent(l.id.Name, pos)
	return obj == l.obj
}

// usesLease reports whether n mentions the lease (then releasing before it
// would change what it computes).
func (l *lease) usesLease(n ast.Node) bool {
	for o := range l.objs {
		if analysisutil.ReferencesObject(l.f.info(), n, o) {
			return true
		}
	}
	return false
}

// cancelFix names a discarded cancel function and defers it.
func (l *lease) cancelFix(blank *ast.Ident) (analysis.SuggestedFix, bool) {
	pass := l.f.s.pass
	file := analysisutil.FileOf(pass, blank.Pos())
	if file == nil {
		return analysis.SuggestedFix{}, false
	}
	scope := l.f.info().Scopes[file].Innermost(blank.Pos())
	if scope == nil {
		return analysis.SuggestedFix{}, false
	}
	if _, obj := scope.LookupParent("cancel", blank.Pos()); obj != nil {
		return analysis.SuggestedFix{}, false
	}
	stmt, ok := l.stmt.(ast.Stmt)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	c, ok := l.f.cur.FindNode(stmt)
	if !ok {
		return analysis.SuggestedFix{}, false
	}
	if _, ok := c.Parent().Node().(*ast.BlockStmt); !ok {
		return analysis.SuggestedFix{}, false
	}
	src := analysisutil.ReadSource(pass, stmt.Pos())
	if src == nil {
		return analysis.SuggestedFix{}, false
	}
	indent := analysisutil.Indent(pass.Fset, src, stmt.Pos())
	return analysis.SuggestedFix{
		Message: "Name the cancel function and defer it",
		TextEdits: []analysis.TextEdit{
			{Pos: blank.Pos(), End: blank.End(), NewText: []byte("cancel")},
			afterLine(pass, stmt, indent+"defer "+fmt.Sprintf(l.kind().Fix, "cancel")),
		},
	}, true
}

// enclosingFunc returns the innermost function declaration or literal around
// c.
func enclosingFunc(c inspector.Cursor) (ast.Node, bool) {
	for e := range c.Enclosing((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		return e.Node(), true
	}
	return nil, false
}

// afterLine returns an edit that adds the line text after the line on which
// n ends (after any trailing comment).
func afterLine(pass *analysis.Pass, n ast.Node, text string) analysis.TextEdit {
	tf := pass.Fset.File(n.End())
	line := tf.Line(n.End())
	if line < tf.LineCount() {
		pos := tf.LineStart(line + 1)
		return analysis.TextEdit{Pos: pos, End: pos, NewText: []byte(text + "\n")}
	}
	return analysis.TextEdit{Pos: n.End(), End: n.End(), NewText: []byte("\n" + text)}
}

// readsToEOF reports whether n reads the response body to its end with
// io.ReadAll or io.Copy: the transport then returns the connection to the
// pool by itself, so the body no longer holds anything.
func (l *lease) readsToEOF(n ast.Node) bool {
	info := l.f.info()
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		call, ok := x.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		var arg ast.Expr
		switch {
		case analysisutil.IsCallToFunc(info, call, "io", "ReadAll") && len(call.Args) == 1:
			arg = call.Args[0]
		case analysisutil.IsCallToFunc(info, call, "io", "Copy") && len(call.Args) == 2:
			arg = call.Args[1]
		default:
			return true
		}
		if sel, ok := ast.Unparen(arg).(*ast.SelectorExpr); ok && sel.Sel.Name == "Body" {
			if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && l.objs[info.Uses[id]] {
				found = true
			}
		}
		return !found
	})
	return found
}

// releasedAfter reports whether some path from n, not coming back to the
// acquisition, reaches a statement of the function that releases the
// lease: a function that lends the lease to a callback it cannot see
// (c.afterResponse(resp)) and then closes it itself has kept it.
func (l *lease) releasedAfter(n ast.Node) bool {
	g := l.f.s.paths.Func(l.f.cur.Node())
	if g == nil {
		return false
	}
	p, ok := g.Locate(n)
	if !ok {
		return false
	}
	own := l.f.s.own
	stop := func(m ast.Node) bool { return m == l.stmt }
	next := l.kind().NextCloses
	// A release reached only through the failure branch of the lending
	// call's own error (s, err := d.negotiate(conn); if err != nil {
	// conn.Close() }) is the cleanup of a hand-off that did not happen:
	// on success the callee kept the lease.
	var edge func(*cfg.Block, int) bool
	if errObj := l.lendingErr(n); errObj != nil {
		info := l.f.info()
		edge = func(b *cfg.Block, i int) bool {
			if len(b.Succs) != 2 || len(b.Nodes) == 0 {
				return true
			}
			cond, ok := b.Nodes[len(b.Nodes)-1].(ast.Expr)
			return !ok || !isBool(info, cond) || !impliesFailed(info, cond, i == 0, errObj, nil)
		}
	}
	if _, ok := g.ReachesEdges(p.Next(), func(m ast.Node) bool {
		if m == n {
			return false
		}
		// `for rows.Next()` closes the rows when it ends: a release too.
		if e, isExpr := m.(ast.Expr); isExpr && next && isNextCall(l.f.info(), e, l.objs, false) {
			return true
		}
		return own.UseOf(m, l.objs, l.kind()) == ownership.Release
	}, stop, edge); !ok {
		return false
	}
	// A function that later stores the lease, returns it or sends it
	// gives it away on success: what the callback does with it is
	// ambiguous, and the lend stays a hand-off.
	_, stored := g.Reaches(p.Next(), func(m ast.Node) bool { return m != n && l.storesLease(m) }, stop)
	return !stored
}

// lendingErr returns the error variable that the statement n, which lends
// the lease to a call, assigns from that call's error result (s, err :=
// d.negotiate(ctx, conn)), or nil.
func (l *lease) lendingErr(n ast.Node) types.Object {
	as, ok := n.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	info := l.f.info()
	lends := false
	for _, a := range call.Args {
		if id, ok := ast.Unparen(a).(*ast.Ident); ok && l.objs[info.Uses[id]] {
			lends = true
		}
	}
	if !lends {
		return nil
	}
	sig, _ := info.TypeOf(call.Fun).Underlying().(*types.Signature)
	idx := analysisutil.ErrorResult(sig)
	if idx < 0 || idx >= len(as.Lhs) || sig.Results().Len() != len(as.Lhs) {
		return nil
	}
	id, ok := ast.Unparen(as.Lhs[idx]).(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	return info.ObjectOf(id)
}

// storesLease reports whether n puts the lease somewhere that outlives the
// function: a field, an element, a package variable, a return, a send.
func (l *lease) storesLease(n ast.Node) bool {
	info := l.f.info()
	holds := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && l.objs[info.Uses[id]]
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		if len(n.Lhs) != len(n.Rhs) {
			return false
		}
		for i, r := range n.Rhs {
			if !holds(r) {
				continue
			}
			if id, ok := ast.Unparen(n.Lhs[i]).(*ast.Ident); ok {
				if id.Name == "_" {
					continue // dropped, not stored
				}
				if v, ok := info.ObjectOf(id).(*types.Var); ok && v.Parent() != nil && v.Parent() != v.Pkg().Scope() {
					continue // a local alias
				}
			}
			return true
		}
	case *ast.ReturnStmt:
		for _, r := range n.Results {
			if holds(r) {
				return true
			}
		}
	case *ast.SendStmt:
		return holds(n.Value)
	}
	return false
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}
