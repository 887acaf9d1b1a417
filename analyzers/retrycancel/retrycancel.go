package retrycancel

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	"github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/goroutines"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct {
	// SkipLibraries turns off the reports on retry and poll library calls
	// that take no context.
	SkipLibraries bool `json:"skip_libraries"`
	// IncludeTests also checks _test.go files.
	IncludeTests bool `json:"include_tests"`
}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "retrycancel",
		Doc:      analysisutil.MustExtractDoc(doc, "retrycancel"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/retrycancel.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctxflow.Analyzer, flow.Analyzer, goroutines.Analyzer, directives.Analyzer},
		Run:      analysisutil.Finishing((&checker{cfg}).run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

type checker struct{ cfg Config }

type state struct {
	// gor gives the goroutines of the package, asked only about loops
	// over a ticker (endlessTicker).
	gor      *goroutines.Lazy
	pass     *analysis.Pass
	info     *types.Info
	res      *ctxflow.Result
	graphs   *flow.Result
	ins      *inspector.Inspector
	rep      *analysisutil.Reporter
	anyErr   bool                  // while judging exits: any error variable counts
	verdicts map[types.Object]bool // while judging exits: bool results of bound calls
	// classified: while judging exits, bool variables holding a
	// classifier's verdict on a bound call's error.
	classified map[types.Object]*ctxflow.ClassifiesCancel
	boundErr   map[types.Object]bool  // while judging exits: error variables bound calls assign
	loopCalls  map[*ast.CallExpr]bool // while judging exits: the loop's bound calls
	closed     map[types.Object]bool  // the channels the package closes (closedChans)
}

func (c *checker) run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
	st := &state{
		gor:    pass.ResultOf[goroutines.Analyzer].(*goroutines.Lazy),
		pass:   pass,
		info:   pass.TypesInfo,
		res:    res,
		graphs: pass.ResultOf[flow.Analyzer].(*flow.Result),
		ins:    pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
	}
	if !res.ImportsContext {
		return nil, nil
	}
	st.rep = analysisutil.NewReporter(pass)
	for _, f := range res.Funcs {
		if c.cfg.IncludeTests || !strings.HasSuffix(pass.Fset.File(f.Node.Pos()).Name(), "_test.go") {
			st.checkRecursion(f)
		}
	}
	for cur := range st.ins.Root().Preorder((*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.CallExpr)(nil)) {
		if !c.cfg.IncludeTests && strings.HasSuffix(pass.Fset.File(cur.Node().Pos()).Name(), "_test.go") {
			continue
		}
		switch n := cur.Node().(type) {
		case *ast.CallExpr:
			if st.checkCallbackRetry(cur, n, analysisutil.Callee(pass.TypesInfo, n)) {
				continue
			}
			st.checkCondWait(cur, n)
			if !c.cfg.SkipLibraries {
				st.checkLibraryCall(cur, n)
			}
		default:
			if analysisutil.IsRetryLoop(pass.TypesInfo, cur.Node().(ast.Stmt)) {
				st.checkLoop(cur)
			} else {
				st.checkSelectBreak(cur, cur.Node().(ast.Stmt))
			}
		}
	}
	st.rep.Finish()
	return nil, nil
}

// loop is what one retry loop does.
type loop struct {
	stmt     ast.Stmt
	body     *ast.BlockStmt
	f        *ctxflow.Func
	checked  bool // the loop observes the context or leaves on its error
	observes bool // the loop looks at the context itself, on every round
	// obs are the nodes where the loop looks at its context (a call of
	// Err, Done or Cause, a condition that tests for cancellation), gathered
	// by scan; observeRounds decides whether every round passes one.
	obs []ast.Node
	// comms are the select clauses of the loop, for observeRounds;
	// ownComms those of its own selects (not of a nested loop's), for
	// spinArm.
	comms, ownComms []*ast.CommClause
	// skipPos is where a round that passes none of obs goes back to the
	// head, when obs is not empty.
	skipPos token.Pos
	// looksNotActs is set when that round does look at the context, but
	// in a way that does not leave on every end (a test for Canceled only,
	// a look that is logged).
	looksNotActs bool
	bound        []*ast.CallExpr // context-bound calls with an error result
	sleeps       []sleep
	retryErr     ast.Expr // a test for context.DeadlineExceeded/Canceled that retries
	// counted: a `for {}` whose body counts its rounds and leaves when the
	// count runs out (if retries == 0 { return }; retries--).
	counted bool
	// retryPerAttempt: the loop's calls run under a timeout derived inside
	// it, so the retried DeadlineExceeded may be the attempt's own; it is
	// the parent's too once the parent ends, unless the loop tests it.
	retryPerAttempt bool
	// deadline is a timer channel made before the loop whose receive leaves
	// it: the loop ends when it fires.
	deadline ast.Expr
	// stopOnly is a field channel whose receive leaves the loop while its
	// attempts run under the caller's context (otherLifetime).
	stopOnly ast.Expr
	exits    bool               // the loop has a condition or an exit: it polls for something
	rangeInt bool               // for range n
	exitCurs []inspector.Cursor // returns and branches that leave the loop
	// callAssigns are the assignments of one call's results in the loop,
	// gathered by dropWalks for boundResults.
	callAssigns []*ast.AssignStmt
}

// judgeExits decides whether the loop stops on the failure of its work: its
// condition or one of its exits is taken for the error. In a loop with
// context-bound calls only errors that may carry cancellation count; in a
// loop without (an accept loop, a poll), any error does.
func (st *state) judgeExits(l *loop) {
	defer st.judging(l)()
	if s, ok := l.stmt.(*ast.ForStmt); ok && s.Cond != nil && !l.checked &&
		st.classify(s.Cond, false) == guardFinal {
		// for i < 3 && retryable(err): the loop ends on the error.
		l.checked = true
	}
	for _, c := range l.exitCurs {
		if l.checked {
			return
		}
		switch n := c.Node().(type) {
		case *ast.ReturnStmt:
			l.checked = st.returnFinal(c, n, l)
		default:
			l.checked = st.exitFinal(c, l, false)
		}
	}
}

// judging sets up the state classify reads about l's bound calls and
// returns the function that clears it.
func (st *state) judging(l *loop) func() {
	st.anyErr = len(l.bound) == 0
	st.verdicts, st.boundErr = st.boundResults(l)
	st.classified = st.classifiedResults(l)
	st.loopCalls = make(map[*ast.CallExpr]bool, len(l.bound))
	for _, c := range l.bound {
		st.loopCalls[c] = true
	}
	return func() { st.anyErr, st.verdicts, st.boundErr, st.loopCalls, st.classified = false, nil, nil, nil, nil }
}

// boundResults returns the bool and error variables assigned from a bound
// call: `retry, err := c.process(ctx, cmd)`. A bool there is the callee's
// verdict on its error, as an unknown classifier would be. The error counts
// as the call's in the loop condition too, which the assignment reaches
// only on the next round (for err == nil { msg, err = next(ctx) }).
func (st *state) boundResults(l *loop) (verdicts, errs map[types.Object]bool) {
	for _, as := range l.callAssigns {
		if !slices.Contains(l.bound, ast.Unparen(as.Rhs[0]).(*ast.CallExpr)) {
			continue
		}
		for _, lhs := range as.Lhs {
			id, ok := lhs.(*ast.Ident)
			if !ok {
				continue
			}
			obj := st.info.ObjectOf(id)
			switch {
			case obj == nil:
			case types.Identical(obj.Type().Underlying(), types.Typ[types.Bool]) && len(as.Lhs) > 1:
				if verdicts == nil {
					verdicts = make(map[types.Object]bool)
				}
				verdicts[obj] = true
			case analysisutil.IsError(obj.Type()):
				if errs == nil {
					errs = make(map[types.Object]bool)
				}
				errs[obj] = true
			}
		}
	}
	return verdicts, errs
}

// classifiedResults returns the bool variables the loop assigns from a
// classifier of an error that may carry cancellation (retry, wait :=
// e.determineRetry(attempt, resp, err)), with the classifier's fact.
func (st *state) classifiedResults(l *loop) map[types.Object]*ctxflow.ClassifiesCancel {
	var out map[types.Object]*ctxflow.ClassifiesCancel
	for _, as := range l.callAssigns {
		call := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		c := st.res.ClassifierOf(analysisutil.Callee(st.info, call))
		if c == nil || c.Param >= len(call.Args) || c.Result >= len(as.Lhs) || !st.mentionsCarrier(call.Args[c.Param]) {
			continue
		}
		if id, ok := as.Lhs[c.Result].(*ast.Ident); ok {
			if obj := st.info.ObjectOf(id); obj != nil {
				if out == nil {
					out = make(map[types.Object]*ctxflow.ClassifiesCancel)
				}
				out[obj] = c
			}
		}
	}
	return out
}

// sleep is an uninterruptible wait in a loop.
type sleep struct {
	stmt ast.Stmt
	dur  ast.Expr // the duration, nil when the wait is not a plain sleep
	desc string   // "time.Sleep", "<-time.After", "this select"
}

func (st *state) checkLoop(cur inspector.Cursor) {
	stmt := cur.Node().(ast.Stmt)
	if !analysisutil.IsRetryLoop(st.info, stmt) {
		return
	}
	f := st.res.Enclosing(cur)
	if f == nil {
		return
	}
	l := &loop{stmt: stmt, f: f}
	switch s := stmt.(type) {
	case *ast.ForStmt:
		l.body = s.Body
		if s.Cond != nil {
			l.exits = true
			if st.checksCtx(s.Cond) {
				l.obs = append(l.obs, s.Cond)
			}
		}
	case *ast.RangeStmt:
		l.body = s.Body
		l.exits = true
		if t := st.info.TypeOf(s.X); t != nil {
			switch u := t.Underlying().(type) {
			case *types.Basic:
				l.rangeInt = u.Info()&types.IsInteger != 0
			case *types.Signature:
				l.rangeInt = true // a schedule iterator: it runs out
				if st.givenContext(s.X) {
					// for range b.Attempts(ctx): the schedule is given the
					// context and can stop yielding when it ends.
					l.checked, l.observes = true, true
				}
			}
		}
	}
	st.scan(cur, l)
	if cc, x := st.spinArm(l); cc != nil {
		st.reportSpin(l, cc, x)
		return
	}
	st.dropWalks(l)
	st.judgeExits(l)
	st.observeRounds(l)
	st.specificRounds(l)
	l.counted = st.countsRounds(l)
	if r, ok := stmt.(*ast.RangeStmt); ok && isTimeChan(st.info.TypeOf(r.X)) && !l.checked {
		if st.endlessTicker(r) {
			// go func() { for range t.C { ... } }() never ends: the
			// goroutine that outlives its owner is untrackedgo's.
			return
		}
		// for range ticker.C: the wait is the loop itself.
		l.sleeps = append([]sleep{{stmt: &ast.ExprStmt{X: r.X}, desc: "ranging over " + types.ExprString(r.X)}}, l.sleeps...)
	}
	ctxExpr, ctxObj := st.loopContext(l)
	if ctxExpr == "" {
		return // no context in reach and none used: nothing can end
	}
	switch {
	case l.retryErr != nil && !l.observes:
		msg := fmt.Sprintf("this retry loop %s tries again when %s fails with the cancellation of %s, a context from outside the loop: once %s has ended every attempt fails at once and the loop spins %s",
			l.where(), calleeName(st.info, l.bound[0]), ctxExpr, ctxExpr, l.until())
		if l.retryPerAttempt {
			msg = fmt.Sprintf("this retry loop %s tries again when %s fails with a context error, which its per-attempt timeout gives but so does %s once it has ended: then every attempt fails at once and the loop spins %s; test %s.Err() before trying again",
				l.where(), calleeName(st.info, l.bound[0]), ctxExpr, l.until(), ctxExpr)
		}
		st.rep.Report(analysis.Diagnostic{
			Pos: l.retryErr.Pos(), End: l.retryErr.End(),
			Message:        msg,
			SuggestedFixes: st.checkFix(l, ctxExpr, ctxObj),
		})
	case len(l.sleeps) > 0 && (len(l.bound) > 0 || f.HasContext() && !l.checked && st.works(l)) &&
		!(l.checked && st.shortSleep(l.sleeps[0])):
		// Without context-bound calls, a loop that waits is reported when
		// it polls: it does work between its sleeps (context-less I/O, a
		// condition to wait for), whether or not it can end by itself. A
		// loop that only sleeps and counts is a delay, and one that only
		// sleeps forever a deliberate hang: neither retries anything.
		s := l.sleeps[0]
		var msg string
		switch {
		case l.checked:
			msg = fmt.Sprintf("%s ignores %s: once %s is canceled this retry loop still sleeps out its backoff before it notices", s.desc, ctxExpr, ctxExpr)
		case l.skipPos.IsValid():
			msg = fmt.Sprintf("%s ignores %s and the loop checks it only on some rounds: once %s is canceled this retry loop keeps sleeping and trying again on the rounds that skip the check %s", s.desc, ctxExpr, ctxExpr, l.until())
		default:
			msg = fmt.Sprintf("%s ignores %s and the loop never checks it: once %s is canceled this retry loop keeps sleeping and trying again %s", s.desc, ctxExpr, ctxExpr, l.until())
		}
		st.rep.Report(analysis.Diagnostic{
			Pos: s.stmt.Pos(), End: s.stmt.End(), Message: msg,
			SuggestedFixes: st.sleepFixes(l, s, ctxExpr, ctxObj),
		})
	case !l.checked && len(l.bound) > 0 && l.skipPos.IsValid():
		msg := fmt.Sprintf("this retry loop %s checks %s only on some rounds: a round that skips the check calls %s again after it fails, so once %s is canceled every attempt fails at once and the loop keeps trying %s",
			l.where(), ctxExpr, calleeName(st.info, l.bound[0]), ctxExpr, l.until())
		if l.looksNotActs {
			msg = fmt.Sprintf("this retry loop %s looks at %s but does not leave on every end of it (a Done arm that leaves only the select, a test for one kind of end, a look that is only logged): after such an end it calls %s again, every attempt fails at once and the loop keeps trying %s",
				l.where(), ctxExpr, calleeName(st.info, l.bound[0]), l.until())
		}
		st.rep.Report(analysis.Diagnostic{
			Pos: stmt.Pos(), End: l.body.Lbrace + 1,
			Message:        msg,
			Related:        []analysis.RelatedInformation{{Pos: l.skipPos, Message: "a round through here goes back to the loop head without acting on " + ctxExpr + "'s end"}},
			SuggestedFixes: st.checkFix(l, ctxExpr, ctxObj),
		})
	case !l.checked && len(l.bound) > 0:
		st.rep.Report(analysis.Diagnostic{
			Pos: stmt.Pos(), End: l.body.Lbrace + 1,
			Message: fmt.Sprintf("this retry loop %s calls %s again after it fails without checking %s: once %s is canceled every attempt fails at once and the loop keeps trying %s",
				l.where(), calleeName(st.info, l.bound[0]), ctxExpr, ctxExpr, l.until()),
			SuggestedFixes: st.checkFix(l, ctxExpr, ctxObj),
		})
	}
}

// givenContext reports whether e is a call given a context argument.
func (st *state) givenContext(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	for _, a := range call.Args {
		if analysisutil.IsContext(st.info.TypeOf(a)) {
			return true
		}
	}
	return false
}

// dropWalks removes from l.bound the calls whose arguments change from one
// iteration to the next (a variable the loop assigns, other than a context):
// such a loop walks pages, versions or nodes rather than retrying the same
// work, and an error it drops belongs to swallowcancel. If no bound call is
// left, the loop is not judged a retry of a failing call.
func (st *state) dropWalks(l *loop) {
	if len(l.bound) == 0 {
		return
	}
	// Only loop-carried variables make a walk: declared outside the loop,
	// assigned inside (token = next). A variable declared in the body
	// (req, err := http.NewRequest...) is rebuilt the same way each round.
	// assigned maps each to the nodes that assign it; a nil node is the
	// loop's own range clause, which assigns on every round.
	assigned := make(map[types.Object][]ast.Node)
	mark := func(e ast.Expr, at ast.Node) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				if obj := st.info.ObjectOf(x); obj != nil && !inside(obj.Pos(), l.body) {
					assigned[obj] = append(assigned[obj], at)
				}
				return
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			default:
				return
			}
		}
	}
	markDecl := func(e ast.Expr, at ast.Node) {
		if id, ok := e.(*ast.Ident); ok {
			if obj := st.info.ObjectOf(id); obj != nil && inside(obj.Pos(), l.body) {
				assigned[obj] = append(assigned[obj], at)
			}
		}
	}
	ast.Inspect(l.stmt, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				mark(lhs, n)
			}
			if len(n.Rhs) == 1 {
				if _, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					l.callAssigns = append(l.callAssigns, n)
				}
			}
			// A variable declared in the body from the next input (a
			// receive, a read) or from such a variable changes each round
			// too: the loop dispatches messages.
			if st.nextInput(n, l, assigned) {
				for _, lhs := range n.Lhs {
					markDecl(lhs, n)
				}
			}
		case *ast.TypeSwitchStmt:
			// switch frame := frame.(type): each clause's frame is the
			// next input too.
			if as, ok := n.Assign.(*ast.AssignStmt); ok && st.nextInput(as, l, assigned) {
				for _, c := range n.Body.List {
					if obj := st.info.Implicits[c]; obj != nil {
						assigned[obj] = append(assigned[obj], as)
					}
				}
			}
		case *ast.IncDecStmt:
			mark(n.X, n)
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if e == nil {
					continue
				}
				var at ast.Node = e // the graph evaluates a nested range's variables before it
				if n == l.stmt {
					at = nil
				}
				mark(e, at)
				// for object := range objectsCh inside the body: each round
				// gathers new input.
				if n != l.stmt && isInputChan(st.info.TypeOf(n.X)) {
					markDecl(e, at)
				}
			}
		}
		return true
	})
	kept := l.bound[:0]
	var sameOnFailure func(call *ast.CallExpr, vars map[types.Object]bool) bool
	for _, call := range l.bound {
		vars := map[types.Object]bool{}
		for _, arg := range call.Args {
			if analysisutil.IsContext(st.info.TypeOf(arg)) {
				continue
			}
			ast.Inspect(arg, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if obj := st.info.ObjectOf(id); obj != nil && assigned[obj] != nil {
						vars[obj] = true
					}
				}
				return true
			})
		}
		if sameOnFailure == nil && len(vars) > 0 {
			sameOnFailure = st.sameOnFailure(l, assigned)
		}
		if len(vars) == 0 || sameOnFailure(call, vars) {
			kept = append(kept, call)
		}
	}
	l.bound = kept
	if len(l.bound) == 0 {
		l.retryErr = nil
	}
}

// sameOnFailure returns the question whether a bound call whose arguments
// mention loop-carried variables (vars, assigned by the nodes in assigned)
// can still be repeated with the same arguments: whether some round through
// it that the loop can take once its calls fail with the context's error
// assigns none of them (`for r.start <= r.end { entries, err :=
// get(ctx, r.start, r.end); if err != nil { log; continue }; r.start +=
// n }` advances only on success, so a failure tries the same range again).
// A variable the loop's own range clause assigns changes every round.
func (st *state) sameOnFailure(l *loop, assigned map[types.Object][]ast.Node) func(*ast.CallExpr, map[types.Object]bool) bool {
	g := st.graphs.Func(l.f.Node)
	if g == nil {
		return func(*ast.CallExpr, map[types.Object]bool) bool { return false }
	}
	head := g.LoopHead(l.stmt)
	if head == nil {
		return func(*ast.CallExpr, map[types.Object]bool) bool { return false }
	}
	in := g.LoopBlocks(head)
	return func(call *ast.CallExpr, vars map[types.Object]bool) bool {
		at, ok := g.Locate(call)
		if !ok || !in[head.Index] {
			return false
		}
		avoid := map[int32]bool{}
		for v := range vars {
			for _, n := range assigned[v] {
				if n == nil {
					return false
				}
				p, ok := g.Locate(n)
				if !ok {
					return false
				}
				avoid[p.Block.Index] = true
			}
		}
		done := st.judging(l)
		defer done()
		_, ok = g.CycleAvoiding(head, func(b *cfg.Block) bool { return avoid[b.Index] },
			func(b *cfg.Block) bool { return b == at.Block }, st.feasibleUnderCancel(in))
		return ok
	}
}

// isInputChan reports whether t is a channel that is not a timer's.
func isInputChan(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Chan)
	return ok && !isTimeChan(t)
}

// nextInput reports whether as takes the loop's next input: its one
// right-hand side receives from a channel, reads through a method that takes
// no arguments but contexts and returns a value and an error (r.ReadReply(),
// sub.NextMsg()) on a receiver from outside the loop, or uses a variable
// already known to change each round.
func (st *state) nextInput(as *ast.AssignStmt, l *loop, changing map[types.Object][]ast.Node) bool {
	if len(as.Rhs) != 1 {
		return false
	}
	rhs := ast.Unparen(as.Rhs[0])
	if u, ok := rhs.(*ast.UnaryExpr); ok && u.Op == token.ARROW && isInputChan(st.info.TypeOf(u.X)) {
		return true
	}
	if call, ok := rhs.(*ast.CallExpr); ok && (st.readCall(call, l) || st.drains(as, call, l) || st.iterAccess(call, l)) {
		return true
	}
	uses := false
	ast.Inspect(rhs, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && changing[st.info.ObjectOf(id)] != nil && inside(st.info.ObjectOf(id).Pos(), l.body) {
			uses = true
		}
		return !uses
	})
	return uses
}

// iterAccess reports whether call reads the current element of the
// iterator the loop advances in its condition (`for itr.Next() { entry :=
// itr.Entry(); ... }`): the condition is a method of a receiver from
// outside the loop that takes no arguments but contexts and answers a bool,
// and call is a method of the same receiver without arguments. Each round
// handles the element the advance moved to.
func (st *state) iterAccess(call *ast.CallExpr, l *loop) bool {
	fs, ok := l.stmt.(*ast.ForStmt)
	if !ok || fs.Cond == nil || len(call.Args) != 0 {
		return false
	}
	adv, ok := ast.Unparen(fs.Cond).(*ast.CallExpr)
	if !ok || !analysisutil.IsBool(st.info.TypeOf(adv)) {
		return false
	}
	for _, a := range adv.Args {
		if !analysisutil.IsContext(st.info.TypeOf(a)) {
			return false
		}
	}
	as, ok := ast.Unparen(adv.Fun).(*ast.SelectorExpr)
	cs, ok2 := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || !ok2 {
		return false
	}
	for _, sel := range []*ast.SelectorExpr{as, cs} {
		if s := st.info.Selections[sel]; s == nil || s.Kind() != types.MethodVal {
			return false
		}
	}
	if root := rootOf(st.info, as.X); root == nil || inside(root.Pos(), l.body) {
		return false
	}
	return analysisutil.SamePath(st.info, as.X, cs.X)
}

// drains reports whether as takes the next element of a source that runs
// dry (entry := w.heap.Next(now); if entry == nil { return }): call is a
// method of a receiver from outside the loop, and a statement of the loop
// body leaves the loop when the element is nil (or the call's boolean
// second result is false). Each round handles a different element until
// none is left, so the loop walks the source; it does not retry.
func (st *state) drains(as *ast.AssignStmt, call *ast.CallExpr, l *loop) bool {
	if len(as.Lhs) == 0 || len(as.Lhs) > 2 {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if s := st.info.Selections[sel]; s == nil || s.Kind() != types.MethodVal {
		return false
	}
	if root := rootOf(st.info, sel.X); root == nil || inside(root.Pos(), l.body) {
		return false
	}
	var elem, ok2 types.Object
	if id, isID := as.Lhs[0].(*ast.Ident); isID {
		elem = st.info.ObjectOf(id)
	}
	if len(as.Lhs) == 2 {
		if id, isID := as.Lhs[1].(*ast.Ident); isID && analysisutil.IsBool(st.info.TypeOf(id)) {
			ok2 = st.info.ObjectOf(id)
		}
	}
	// dry reports whether cond holds when the source is empty.
	var dry func(cond ast.Expr) bool
	dry = func(cond ast.Expr) bool {
		switch c := ast.Unparen(cond).(type) {
		case *ast.BinaryExpr:
			switch c.Op {
			case token.LOR:
				return dry(c.X) || dry(c.Y)
			case token.EQL:
				id, isID := ast.Unparen(c.X).(*ast.Ident)
				return isID && elem != nil && st.info.ObjectOf(id) == elem && st.isNil(c.Y)
			}
		case *ast.UnaryExpr:
			id, isID := ast.Unparen(c.X).(*ast.Ident)
			return c.Op == token.NOT && isID && ok2 != nil && st.info.ObjectOf(id) == ok2
		}
		return false
	}
	for _, stmt := range l.body.List {
		ifs, isIf := stmt.(*ast.IfStmt)
		if !isIf || ifs.Init != nil || ifs.Pos() < as.End() || len(ifs.Body.List) == 0 || !dry(ifs.Cond) {
			continue
		}
		switch last := ifs.Body.List[len(ifs.Body.List)-1].(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			if last.Tok == token.BREAK && (last.Label == nil || !inside(st.info.Uses[last.Label].Pos(), l.body)) {
				return true
			}
		}
	}
	return false
}

// readCall reports whether call reads the next item from a reader made
// outside the loop: a method with no arguments but contexts, whose results
// are a value and an error.
func (st *state) readCall(call *ast.CallExpr, l *loop) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if s := st.info.Selections[sel]; s == nil || s.Kind() != types.MethodVal {
		return false
	}
	for _, a := range call.Args {
		if !analysisutil.IsContext(st.info.TypeOf(a)) {
			return false
		}
	}
	sig, ok := st.info.TypeOf(call.Fun).(*types.Signature)
	if !ok || sig.Results().Len() != 2 || analysisutil.ErrorResult(sig) != 1 {
		return false
	}
	root := sel.X
	for {
		switch x := ast.Unparen(root).(type) {
		case *ast.SelectorExpr:
			root = x.X
			continue
		case *ast.Ident:
			obj := st.info.ObjectOf(x)
			return obj != nil && !inside(obj.Pos(), l.body)
		}
		return false
	}
}

// shortSleep reports whether s waits a constant duration under 100ms (or
// time.Until(t.Add(d)) with such a d): in a loop that checks its context,
// the delay it adds to cancellation does not matter.
func (st *state) shortSleep(s sleep) bool {
	if s.dur == nil {
		return false
	}
	dur := s.dur
	// time.Until(last.Add(10 * time.Millisecond)): at most the constant
	// once last has passed.
	if call, ok := ast.Unparen(dur).(*ast.CallExpr); ok && len(call.Args) == 1 &&
		analysisutil.IsFunc(analysisutil.Callee(st.info, call), "time", "Until") {
		if add, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr); ok && len(add.Args) == 1 &&
			analysisutil.IsMethod(analysisutil.Callee(st.info, add), "time", "Time", "Add") {
			dur = add.Args[0]
		}
	}
	tv, ok := st.info.Types[dur]
	if !ok || tv.Value == nil {
		return false
	}
	d, ok := constant.Int64Val(constant.ToInt(tv.Value))
	return ok && d < int64(100*time.Millisecond)
}

// where names the function the loop is in: "in Connect", "in a function
// literal in Spawn". Two loops that retry the same call are told apart.
func (l *loop) where() string {
	if l.f.Obj != nil {
		return "in " + l.f.Obj.Name()
	}
	for g := l.f.Parent; g != nil; g = g.Parent {
		if g.Obj != nil {
			return "in a function literal in " + g.Obj.Name()
		}
	}
	return "in a function literal"
}

// until describes how long a loop that ignores cancellation goes on.
func (l *loop) until() string {
	if l.stopOnly != nil {
		return "until " + types.ExprString(l.stopOnly) + " is closed"
	}
	if l.deadline != nil {
		return "until " + types.ExprString(l.deadline) + " fires"
	}
	switch s := l.stmt.(type) {
	case *ast.ForStmt:
		if s.Cond == nil && l.counted {
			return "until its attempts run out"
		}
		if s.Cond == nil {
			return "forever"
		}
		if s.Init != nil || s.Post != nil {
			return "until its attempts run out"
		}
		return "until its condition fails"
	case *ast.RangeStmt:
		if l.rangeInt {
			return "until its attempts run out"
		}
		return "forever"
	}
	return "forever"
}

// loopContext returns the spelling of the context the loop should watch and
// the variable its spelling starts with: the context argument of its first
// bound call when that is a variable from outside the loop, else the nearest
// context in reach.
func (st *state) loopContext(l *loop) (string, types.Object) {
	for _, call := range l.bound {
		for _, arg := range call.Args {
			if !analysisutil.IsContext(st.info.TypeOf(arg)) {
				continue
			}
			if obj := analysisutil.ObjectOfIdent(st.info, arg); obj != nil && !inside(obj.Pos(), l.stmt) && st.canEnd(l, obj) {
				return obj.Name(), obj
			}
		}
	}
	for _, c := range l.f.Contexts {
		if c.Outer && st.detachedFrom(l.f, c) || st.neverEnds(c) {
			continue
		}
		return c.Expr, c.Obj
	}
	return "", nil
}

// neverEnds reports whether the context c in reach is a parameter every
// caller passes a detached context (ctxflow's DetachedParam: a root made
// with context.Background() and given only values on the way): no
// cancellation can reach the loop through it.
func (st *state) neverEnds(c ctxflow.Context) bool {
	v, ok := c.Obj.(*types.Var)
	return ok && (c.Kind == ctxflow.ParamContext && st.res.DetachedParam(v) || c.Kind == ctxflow.RequestContext && st.res.DetachedRequestParam(v))
}

// detachedFrom reports whether f runs in a goroutine literal (go func()
// {...}()) that never mentions the outer context c: a worker that outlives
// its spawner on purpose, whose loops the spawner's context does not bound.
func (st *state) detachedFrom(f *ctxflow.Func, c ctxflow.Context) bool {
	for g := f; g != nil && g.Obj == nil; g = g.Parent {
		lit, ok := g.Node.(*ast.FuncLit)
		if !ok || inside(c.Obj.Pos(), lit) {
			return false
		}
		cur, ok := st.ins.Root().FindNode(lit)
		if !ok {
			return false
		}
		call, ok := cur.Parent().Node().(*ast.CallExpr)
		if !ok || ast.Unparen(call.Fun) != lit {
			continue
		}
		if _, ok := cur.Parent().Parent().Node().(*ast.GoStmt); ok {
			return !analysisutil.ReferencesObject(st.info, lit.Body, c.Obj)
		}
	}
	return false
}

// canEnd reports whether the context variable obj may be canceled: it is
// a parameter or a context in reach, or a local variable assigned something
// other than context.Background() or context.TODO() (and WithValue of them).
func (st *state) canEnd(l *loop, obj types.Object) bool {
	for _, c := range l.f.Contexts {
		if c.Obj == obj {
			return !st.neverEnds(c)
		}
	}
	v, ok := obj.(*types.Var)
	if !ok || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return true
	}
	fcur, ok := st.ins.Root().FindNode(l.f.Node)
	if !ok {
		return true
	}
	for c := range fcur.Preorder((*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)) {
		var lhs []*ast.Ident
		var rhs []ast.Expr
		switch n := c.Node().(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				id, _ := ast.Unparen(e).(*ast.Ident)
				lhs = append(lhs, id)
			}
			rhs = n.Rhs
		case *ast.ValueSpec:
			lhs, rhs = n.Names, n.Values
		}
		for i, id := range lhs {
			if id == nil || st.info.ObjectOf(id) != obj {
				continue
			}
			if len(rhs) == 0 {
				continue // var ctx context.Context: nil
			}
			val := rhs[0]
			if len(rhs) == len(lhs) {
				val = rhs[i]
			}
			if i == 0 && len(lhs) == 2 && len(rhs) == 1 && st.cancelOnlyDeferred(val, lhs[1], l.f) {
				continue // ctx, cancel := context.WithCancel(root); defer cancel(): it ends with the function
			}
			if !st.rootContext(val) {
				return true
			}
		}
	}
	return false
}

// rootContext reports whether e is context.Background(), context.TODO(),
// or WithValue of one of them: a context that never ends.
func (st *state) rootContext(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	if analysisutil.IsCallToFunc(st.info, call, "context", "Background", "TODO") {
		return true
	}
	return analysisutil.IsCallToFunc(st.info, call, "context", "WithValue") && len(call.Args) > 0 && st.rootContext(call.Args[0])
}

func inside(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }

// scan walks the loop (not into function literals) and fills l.
func (st *state) scan(cur inspector.Cursor, l *loop) {
	// A for statement's init runs once, before the first round: its calls
	// are not attempts the loop repeats (`for p, err = c.List(ctx);
	// p.NotDone(); err = p.Next(ctx)` repeats Next, not List).
	var init ast.Stmt
	if fs, ok := l.stmt.(*ast.ForStmt); ok {
		init = fs.Init
	}
	cur.Inspect(nil, func(c inspector.Cursor) bool {
		if init != nil && c.Node() == ast.Node(init) {
			return false
		}
		switch n := c.Node().(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			st.scanCall(c, n, l)
		case *ast.ExprStmt:
			if cc, ok := c.Parent().Node().(*ast.CommClause); ok && cc.Comm == n {
				break // a select case, judged with its select
			}
			if s, ok := st.sleepStmt(n); ok && st.innermostLoop(c) == l.stmt && !beforeExit(c) {
				l.sleeps = append(l.sleeps, s)
			}
			if call, ok := ast.Unparen(n.X).(*ast.CallExpr); ok && analysisutil.NoReturn(st.info, call) {
				// logger.Fatalf("attempt %d: %v", i, err): the program
				// (or the goroutine) ends here.
				l.exits = true
				l.exitCurs = append(l.exitCurs, c)
			}
		case *ast.CommClause:
			if n.Comm != nil {
				if ch := analysisutil.Received(n.Comm); ch != nil && l.deadline == nil && isTimeChan(st.info.TypeOf(ch)) &&
					analysisutil.Leaves(st.info, n.Body) {
					if obj := rootOf(st.info, ch); obj != nil && !inside(obj.Pos(), l.stmt) {
						// timeout := time.After(5 * time.Second) before the
						// loop, case <-timeout: return: the loop ends by then.
						l.deadline = ch
					}
				}
				l.comms = append(l.comms, n)
				if st.innermostLoop(c) == l.stmt {
					l.ownComms = append(l.ownComms, n)
				}
				if id, ok := ast.Unparen(analysisutil.Received(n.Comm)).(*ast.Ident); ok && st.res.DoneContext(n.Comm) != nil {
					// done := ctx.Done(); ... case <-done: a look at the
					// context, as case <-ctx.Done() is (whose call the
					// scan meets as a call).
					l.obs = append(l.obs, id)
				}
			}
		case *ast.SelectStmt:
			if st.innermostLoop(c) == l.stmt {
				if st.timersOnly(n) {
					l.sleeps = append(l.sleeps, sleep{stmt: n, desc: "this select over timers only"})
				} else if wake := st.timerOrWake(n); wake != "" {
					l.sleeps = append(l.sleeps, sleep{stmt: n, desc: "this select over a timer and " + wake + ", which nothing closes,"})
				}
			}
		case *ast.ReturnStmt:
			l.exits = true
			l.exitCurs = append(l.exitCurs, c)
		case *ast.BranchStmt:
			if (n.Tok == token.BREAK || n.Tok == token.GOTO) && st.leaves(c, n, l) {
				l.exits = true
				l.exitCurs = append(l.exitCurs, c)
			}
		case *ast.IfStmt:
			if t, ok := st.res.CancelTestOf(n.Cond); ok && t.Ctx != nil {
				// err := ctx.Err(); if err != nil {...}: observeRounds
				// decides whether its branch leaves the loop.
				l.obs = append(l.obs, n.Cond)
			}
			if t, ok := st.res.CancelTestOf(n.Cond); l.retryErr == nil && cancelTest(st.info, n.Cond) && !(ok && t.Ctx != nil) {
				// A test of the bound call's error for a context sentinel
				// that leaves is the loop's own verdict on that error. (A
				// test of ctx.Err() is a look at the context: the rounds
				// decide whether it is enough.)
				if analysisutil.Leaves(st.info, n.Body.List) {
					l.checked, l.observes = true, true
				} else {
					l.retryErr, l.retryPerAttempt = n.Cond, st.perAttempt(l)
				}
			}
		case *ast.CaseClause:
			// switch { case errors.Is(err, context.DeadlineExceeded): continue }
			for _, e := range n.List {
				if l.retryErr != nil || !cancelTest(st.info, e) {
					continue
				}
				if analysisutil.Leaves(st.info, n.Body) {
					l.checked, l.observes = true, true
				} else {
					l.retryErr, l.retryPerAttempt = e, st.perAttempt(l)
				}
			}
		}
		return true
	})
	if len(l.bound) == 0 {
		l.retryErr = nil
	}
}

func (st *state) scanCall(c inspector.Cursor, call *ast.CallExpr, l *loop) {
	fn := analysisutil.Callee(st.info, call)
	switch {
	case analysisutil.IsMethod(fn, "context", "Context", "Err"),
		analysisutil.IsMethod(fn, "context", "Context", "Done"),
		analysisutil.IsFunc(fn, "context", "Cause"):
		l.obs = append(l.obs, call)
		return
	case fn != nil && st.res.ChecksContext(fn) && ctxflow.ReturnsBool(fn):
		l.obs = append(l.obs, call)
		return
	}
	// Calls in a nested loop belong to that loop: a walk over a collection
	// inside a retry loop is swallowcancel's business.
	// A call started by go or defer returns no error to the loop.
	switch c.Parent().Node().(type) {
	case *ast.GoStmt, *ast.DeferStmt:
		return
	}
	if st.errorMayCarryCancel(call) && st.innermostLoop(c) == l.stmt {
		l.bound = append(l.bound, call)
	}
}

// errorMayCarryCancel reports whether call returns an error that may carry
// cancellation: it is context-bound and not every context it is given is
// detached (ctxflow's rule for every check).
func (st *state) errorMayCarryCancel(call *ast.CallExpr) bool {
	t := st.info.TypeOf(call.Fun)
	if t == nil {
		return false
	}
	sig, _ := t.Underlying().(*types.Signature)
	if sig == nil {
		return false
	}
	i := analysisutil.ErrorResult(sig)
	return i >= 0 && st.res.CallMayCarryCancel(call, i)
}

// checksCtx reports whether e observes a context: Err, Done, Cause, or a
// helper known to check its context.
func (st *state) checksCtx(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if call, ok := n.(*ast.CallExpr); ok {
			fn := analysisutil.Callee(st.info, call)
			if analysisutil.IsMethod(fn, "context", "Context", "Err") ||
				analysisutil.IsMethod(fn, "context", "Context", "Done") ||
				analysisutil.IsFunc(fn, "context", "Cause") ||
				fn != nil && st.res.ChecksContext(fn) && ctxflow.ReturnsBool(fn) {
				found = true
			}
		}
		return true
	})
	return found
}

// innermostLoop returns the innermost for or range statement enclosing c
// within its function.
func (st *state) innermostLoop(c inspector.Cursor) ast.Node {
	for p := c.Parent(); p.Node() != nil; p = p.Parent() {
		switch p.Node().(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return p.Node()
		case *ast.FuncLit, *ast.FuncDecl:
			return nil
		}
	}
	return nil
}

// sleepStmt recognizes time.Sleep(d) and <-time.After(d) used as a
// statement.
// works reports whether a round of the loop does something besides waiting
// and counting: a call other than its sleeps, builtins, conversions, looks
// at a context and formatting or logging (knowledge.Formats), or a go
// statement or a send. A loop that only sleeps and counts is a delay.
func (st *state) works(l *loop) bool {
	skip := make(map[ast.Node]bool, len(l.sleeps))
	for _, s := range l.sleeps {
		skip[s.stmt] = true
	}
	found := false
	var inspect func(n ast.Node) bool
	inspect = func(n ast.Node) bool {
		if found {
			return false
		}
		if skip[n] {
			if sel, ok := n.(*ast.SelectStmt); ok {
				ast.Inspect(sel.Body, inspect)
			}
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			// A select over timers waits in its comms; its case bodies
			// may poll (case <-tick.C: if ready() { return }).
			for _, s := range n.Body {
				ast.Inspect(s, inspect)
			}
			return false
		case *ast.GoStmt, *ast.SendStmt:
			found = true
		case *ast.CallExpr:
			if tv, ok := st.info.Types[ast.Unparen(n.Fun)]; ok && (tv.IsType() || tv.IsBuiltin()) {
				return true
			}
			fn := analysisutil.Callee(st.info, n)
			if fn != nil && fn.Pkg() != nil && (fn.Pkg().Path() == "context" || analysisutil.FormatsOperands(fn)) {
				return true
			}
			found = true
		}
		return !found
	}
	if fs, ok := l.stmt.(*ast.ForStmt); ok && fs.Cond != nil {
		ast.Inspect(fs.Cond, inspect) // for !ready() { sleep }: the condition polls
	}
	ast.Inspect(l.body, inspect)
	return found
}

func (st *state) sleepStmt(s *ast.ExprStmt) (sleep, bool) {
	switch x := ast.Unparen(s.X).(type) {
	case *ast.CallExpr:
		if analysisutil.IsCallToFunc(st.info, x, "time", "Sleep") && len(x.Args) == 1 {
			return sleep{stmt: s, dur: x.Args[0], desc: "time.Sleep"}, true
		}
		if fn := analysisutil.Callee(st.info, x); fn != nil && st.res.Sleeps(fn) {
			return sleep{stmt: s, desc: types.ExprString(x.Fun) + ", which calls time.Sleep,"}, true
		}
	case *ast.UnaryExpr:
		if x.Op != token.ARROW {
			return sleep{}, false
		}
		if call, ok := ast.Unparen(x.X).(*ast.CallExpr); ok && analysisutil.IsCallToFunc(st.info, call, "time", "After") && len(call.Args) == 1 {
			return sleep{stmt: s, dur: call.Args[0], desc: "<-time.After"}, true
		}
		// <-ticker.C waits for the next tick. A bare receive from a
		// timer's channel is often the drain after Stop
		// (if !t.Stop() { <-t.C }): not reported.
		if sel, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && sel.Sel.Name == "C" {
			if t := st.info.TypeOf(sel.X); t != nil {
				if p, ok := t.Underlying().(*types.Pointer); ok && analysisutil.IsNamed(p.Elem(), "time", "Ticker") {
					return sleep{stmt: s, desc: "<-" + types.ExprString(x.X)}, true
				}
			}
		}
	}
	return sleep{}, false
}

// rootOf returns the variable an access path starts with: timeout in
// timeout, t in t.C.
func rootOf(info *types.Info, e ast.Expr) types.Object {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return info.Uses[x]
		case *ast.SelectorExpr:
			e = x.X
		default:
			return nil
		}
	}
}

func isTimeChan(t types.Type) bool {
	if t == nil {
		return false
	}
	ch, ok := t.Underlying().(*types.Chan)
	return ok && analysisutil.IsNamed(ch.Elem(), "time", "Time")
}

// timersOnly reports whether every case of a select receives from a timer
// or ticker channel (and there is no default): a sleep in disguise.
func (st *state) timersOnly(s *ast.SelectStmt) bool {
	if len(s.Body.List) == 0 {
		return false
	}
	for _, cc := range s.Body.List {
		cc := cc.(*ast.CommClause)
		if cc.Comm == nil {
			return false
		}
		var x ast.Expr
		switch comm := cc.Comm.(type) {
		case *ast.ExprStmt:
			x = comm.X
		case *ast.AssignStmt:
			if len(comm.Rhs) == 1 {
				x = comm.Rhs[0]
			}
		}
		u, ok := ast.Unparen(x).(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW || !isTimeChan(st.info.TypeOf(u.X)) {
			return false
		}
	}
	return true
}

// timerOrWake returns, for a select whose cases receive from a timer and
// from unexported channel fields of this package that it never closes (a
// wake-up such as
// r.notify, sent on when there is new work), the wake-up channels as
// written, or "": such a select is a pause that only a timer or more work
// ends; the context's end does not. A channel the package closes may be
// the stop signal, and a Done channel is a look at the context.
func (st *state) timerOrWake(s *ast.SelectStmt) string {
	timer := false
	var wakes []string
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		if cc.Comm == nil {
			return "" // a default: no wait
		}
		x := analysisutil.Received(cc.Comm)
		if x == nil {
			return "" // a send
		}
		if isTimeChan(st.info.TypeOf(x)) {
			timer = true
			continue
		}
		if st.res.DoneContext(cc.Comm) != nil {
			return ""
		}
		if flow.Mentions(&ast.BlockStmt{List: cc.Body}, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ReturnStmt:
				return true
			case *ast.BranchStmt:
				return n.Tok == token.BREAK && n.Label != nil || n.Tok == token.GOTO
			}
			return false
		}) {
			return "" // the case leaves: a stop signal, not a wake-up
		}
		// Only the package can close an unexported field of its own; an
		// exported one may be closed by importers, a parameter by the
		// caller.
		obj := analysisutil.VarObject(st.info, x)
		if obj == nil || !obj.IsField() || obj.Pkg() != st.pass.Pkg || obj.Exported() || st.closedChans()[obj] {
			return ""
		}
		wakes = append(wakes, types.ExprString(x))
	}
	if !timer || len(wakes) == 0 {
		return ""
	}
	return strings.Join(wakes, " and ")
}

// closedChans returns the channel variables and fields the package closes
// somewhere (close(x), close(s.done)), computed once.
func (st *state) closedChans() map[types.Object]bool {
	if st.closed != nil {
		return st.closed
	}
	st.closed = map[types.Object]bool{}
	for c := range st.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		if analysisutil.IsBuiltin(st.info, call, "close") && len(call.Args) == 1 {
			if obj := analysisutil.VarObject(st.info, call.Args[0]); obj != nil {
				st.closed[obj] = true
			}
		}
	}
	return st.closed
}

// perAttempt reports whether a bound call of the loop runs under a context
// declared inside the loop (a per-attempt timeout).
func (st *state) perAttempt(l *loop) bool {
	for _, call := range l.bound {
		for _, arg := range call.Args {
			if !analysisutil.IsContext(st.info.TypeOf(arg)) {
				continue
			}
			if obj := analysisutil.ObjectOfIdent(st.info, arg); obj != nil && inside(obj.Pos(), l.stmt) {
				return true
			}
		}
	}
	return false
}

// cancelTest reports whether cond tests an error against
// context.Canceled or context.DeadlineExceeded (errors.Is or ==), without
// negation.
func cancelTest(info *types.Info, cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				return false
			}
		case *ast.BinaryExpr:
			if n.Op == token.NEQ {
				return false
			}
		case *ast.SelectorExpr:
			if isCancelSentinel(info, n) {
				found = true
			}
		}
		return !found
	})
	return found
}

// isCancelSentinel reports whether e is context.Canceled or
// context.DeadlineExceeded, or gRPC's codes.Canceled or
// codes.DeadlineExceeded.
func isCancelSentinel(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	obj := info.ObjectOf(sel.Sel)
	if obj == nil || obj.Pkg() == nil || (obj.Name() != "Canceled" && obj.Name() != "DeadlineExceeded") {
		return false
	}
	switch obj := obj.(type) {
	case *types.Var:
		return obj.Pkg().Path() == "context"
	case *types.Const:
		return obj.Pkg().Path() == "google.golang.org/grpc/codes"
	}
	return false
}

func calleeName(info *types.Info, call *ast.CallExpr) string {
	return types.ExprString(call.Fun)
}

// beforeExit reports whether the statement at c is followed by a return or
// a break before the loop would go round again: a pause on the way out, not
// a backoff between attempts. The last statement of an if or case body is
// followed by whatever follows that statement.
func beforeExit(c inspector.Cursor) bool {
	for {
		if next, ok := c.NextSibling(); ok {
			switch n := next.Node().(type) {
			case *ast.ReturnStmt:
				return true
			case *ast.BranchStmt:
				return n.Tok == token.BREAK
			}
			return false
		}
		// Last in its list: climb out of the enclosing if or case.
		p := c.Parent()
		switch p.Node().(type) {
		case *ast.BlockStmt:
			switch p.Parent().Node().(type) {
			case *ast.IfStmt:
				c = p.Parent()
				for {
					if _, ok := c.Parent().Node().(*ast.IfStmt); !ok {
						break
					}
					c = c.Parent() // else if chain
				}
				continue
			}
			return false
		case *ast.CaseClause, *ast.CommClause:
			c = p.Parent().Parent() // the switch or select statement
			continue
		}
		return false
	}
}

// cancelOnlyDeferred reports whether val is context.WithCancel (or
// WithCancelCause) of a root context and its cancel function, cancel, is
// called only by defer statements of f: nothing can end the context while
// f runs, so a loop in f cannot see it end.
func (st *state) cancelOnlyDeferred(val ast.Expr, cancel *ast.Ident, f *ctxflow.Func) bool {
	call, ok := ast.Unparen(val).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 || cancel == nil || cancel.Name == "_" ||
		!analysisutil.IsCallToFunc(st.info, call, "context", "WithCancel", "WithCancelCause") || !st.rootContext(call.Args[0]) {
		return false
	}
	obj := st.info.ObjectOf(cancel)
	only := true
	ast.Inspect(f.Body, func(n ast.Node) bool {
		if !only {
			return false
		}
		switch n := n.(type) {
		case *ast.DeferStmt:
			if id, ok := ast.Unparen(n.Call.Fun).(*ast.Ident); ok && st.info.Uses[id] == obj {
				return false
			}
		case *ast.Ident:
			if st.info.Uses[n] == obj {
				only = false // called, stored or handed on elsewhere
			}
		}
		return true
	})
	return only
}

// countsRounds reports whether a `for {}` loop's body changes a local
// counter (n++, n--, n += k, n = n - 1) that a condition of the body tests
// on a branch leaving the loop: it ends when its attempts run out.
func (st *state) countsRounds(l *loop) bool {
	fs, ok := l.stmt.(*ast.ForStmt)
	if !ok || fs.Cond != nil {
		return false
	}
	changed := map[types.Object]bool{}
	ast.Inspect(fs.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				changed[st.info.Uses[id]] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.ADD_ASSIGN || n.Tok == token.SUB_ASSIGN {
				if id, ok := ast.Unparen(n.Lhs[0]).(*ast.Ident); ok {
					changed[st.info.Uses[id]] = true
				}
			}
		}
		return true
	})
	if len(changed) == 0 {
		return false
	}
	found := false
	ast.Inspect(fs.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || found {
			return !found
		}
		mentions := false
		ast.Inspect(ifs.Cond, func(m ast.Node) bool {
			if id, ok := m.(*ast.Ident); ok && changed[st.info.Uses[id]] {
				mentions = true
			}
			return !mentions
		})
		if mentions && analysisutil.Leaves(st.info, ifs.Body.List) {
			found = true
		}
		return !found
	})
	return found
}

// endlessTicker reports whether r is the loop over a ticker's channel that
// makes a goroutine never end (goroutines' Endless): untrackedgo reports
// that goroutine, one finding for the one bug.
func (st *state) endlessTicker(r *ast.RangeStmt) bool {
	for _, g := range st.gor.Get().Goroutines {
		if g.Endless != nil && g.Endless.Ticker == r {
			return true
		}
	}
	return false
}
