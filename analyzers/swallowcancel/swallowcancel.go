package swallowcancel

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

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
	// CleanupCalls adds names of functions and methods whose dropped error
	// is never reported, to the built-in list (Close, Shutdown, Stop,
	// Rollback, Release, Unlock, ...).
	CleanupCalls []string `json:"cleanup-calls"`
	// Tests also reports findings in _test.go files.
	Tests bool `json:"tests"`
}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	c := &checker{cfg: cfg, cleanup: make(map[string]bool)}
	for _, n := range defaultCleanup {
		c.cleanup[n] = true
	}
	for _, n := range cfg.CleanupCalls {
		c.cleanup[n] = true
	}
	return &analysis.Analyzer{
		Name:     "swallowcancel",
		Doc:      analysisutil.MustExtractDoc(doc, "swallowcancel"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/swallowcancel.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctxflow.Analyzer, flow.Analyzer, goroutines.Analyzer, directives.Analyzer},
		Run:      analysisutil.Finishing(c.run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

// defaultCleanup names calls that release or tear down: their error is
// routinely dropped on the way out and never decides success.
var defaultCleanup = []string{
	"Close", "CloseSend", "CloseWithError", "Shutdown", "Stop", "Rollback", "Release",
	"Unlock", "Abort", "Cancel", "Disconnect", "Unsubscribe", "Unregister", "Cleanup",
}

type checker struct {
	cfg     Config
	cleanup map[string]bool // read-only after New
}

// state is one run of the check on one package.
type state struct {
	*checker
	pass   *analysis.Pass
	res    *ctxflow.Result
	graphs *flow.Result
	rep    *analysisutil.Reporter
	info   *types.Info
	quiet  map[*ctxflow.Func]bool
	// iterCancel marks the iterator bodies already reported by
	// checkIterCancel.
	iterCancel map[*ctxflow.Func]bool
	group      map[ast.Node]bool // literals run by a group (errgroup, scope)
	unread     map[ast.Node]bool // group literals whose errors no Wait reads
	runs       map[ast.Node]*goroutines.GroupRun
	// owner is the function that starts a group goroutine: a literal's
	// parent, or for a function only group literals call, their parent.
	owner map[ast.Node]*ctxflow.Func
	// callbackCtx lists, for a literal given to a context-bound call, the
	// contexts given with it.
	callbackCtx map[ast.Node][]string
	// member marks the functions only group literals call and return
	// from (addGroupMembers).
	member map[ast.Node]bool
	goLit  map[ast.Node]bool // literals run by a go statement
	// escaped memoizes escapes: whether a variable is mentioned in a
	// literal or has its address taken (one walk per variable).
	escaped map[*types.Var]bool
	// outcomes: the error fields a type records its failures in and hands
	// out through an accessor (outcomesOf), by named type.
	outcomes map[*types.Named][]outcome
	rt       bool
}

func (c *checker) run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
	if !res.ImportsContext {
		return analysisutil.NothingToReport(pass), nil
	}
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	s := &state{
		checker:     c,
		pass:        pass,
		res:         res,
		graphs:      pass.ResultOf[flow.Analyzer].(*flow.Result),
		rep:         analysisutil.NewReporter(pass),
		info:        pass.TypesInfo,
		quiet:       make(map[*ctxflow.Func]bool),
		rt:          res.ImportsRuntime(),
		group:       make(map[ast.Node]bool),
		unread:      make(map[ast.Node]bool),
		runs:        make(map[ast.Node]*goroutines.GroupRun),
		owner:       make(map[ast.Node]*ctxflow.Func),
		callbackCtx: make(map[ast.Node][]string),
		member:      make(map[ast.Node]bool),
		goLit:       goLiterals(ins),
		escaped:     make(map[*types.Var]bool),
		iterCancel:  make(map[*ctxflow.Func]bool),
	}
	runs := pass.ResultOf[goroutines.Analyzer].(*goroutines.Lazy).GroupRuns()
	for lit, r := range runs {
		s.group[lit] = true
		s.unread[lit] = r.Unread
		s.runs[lit] = r
		if f := res.FuncOf(lit); f != nil {
			s.owner[lit] = f.Parent
		}
	}
	s.addGroupMembers(runs)
	s.addCallbacks(ins)
	for _, f := range res.Funcs {
		s.quiet[f] = s.mayEndQuietly(f)
	}
	filter := []ast.Node{(*ast.ExprStmt)(nil), (*ast.AssignStmt)(nil), (*ast.IfStmt)(nil), (*ast.CaseClause)(nil), (*ast.CommClause)(nil), (*ast.ForStmt)(nil), (*ast.DeferStmt)(nil)}
	for cur := range ins.Root().Preorder(filter...) {
		if !c.cfg.Tests && s.inTest(cur.Node().Pos()) {
			continue
		}
		switch n := cur.Node().(type) {
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(n.X).(*ast.CallExpr); ok {
				s.checkDrop(cur, call, nil)
			}
		case *ast.AssignStmt:
			if call, ok := droppedCall(n); ok {
				s.checkDrop(cur, call, n)
				s.checkDeadStore(cur, n, call)
			}
			if len(n.Rhs) == 1 {
				if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					s.checkShadow(cur, n, call)
				}
			}
		case *ast.IfStmt:
			s.checkIf(cur, n)
		case *ast.CaseClause:
			s.checkCase(cur, n)
		case *ast.ForStmt:
			s.checkIterErr(cur, n)
			s.checkNoAttempt(cur, n)
			s.checkGuardExit(cur, n)
		case *ast.CommClause:
			s.checkDone(cur, n)
		case *ast.DeferStmt:
			s.checkDeferred(cur, n)
		}
	}
	s.rep.Finish()
	return nil, nil
}

func (s *state) inTest(pos token.Pos) bool {
	return strings.HasSuffix(s.pass.Fset.File(pos).Name(), "_test.go")
}

// A doc contract is a clause whose subject is the function (its name, or
// "it") and whose verb says it ends quietly: "Run returns nil when ctx is
// canceled", "On shutdown it returns nil", "Watch blocks until the context
// is canceled", or one that says the work is best-effort. A sentence that
// merely mentions nil and a shutdown while describing what the code does
// ("... and SyncAll still stamps a full sync and returns nil") is no
// contract.
var (
	quietEnd = analysisutil.LazyRegexp(`(?i)\b(cancel\w*|shut ?down\w*|stop\w*|done|context|ctx|exit\w*|terminat\w*|clos\w*|graceful\w*)\b`)
	// The clause after its subject: the verb of a nil-on-stop contract.
	quietNil = analysisutil.LazyRegexp(`(?i)^(returns?|will return)\s+(nil|a nil error|no error)\b`)
	// The clause after its subject: "blocks until ctx is canceled", the end
	// of the context being the normal end of the function.
	quietUntil = analysisutil.LazyRegexp(`(?i)^(runs?|blocks?|serves?|loops?|waits?|works?|processes|listens?|watch(es)?|consumes?|polls?)\b.*\buntil\b.*(\b(ctx|context)\b.*\b(cancel\w*|done|clos\w*|ends?|expires?)\b|\bcancel\w*|\bshut ?down\w*|\bstop(ped|s)?\b)`)
	// The condition of a nil return: "returns nil when ...".
	quietCond = analysisutil.LazyRegexp(`(?i)\b(when|whenever|if|once|on|after|upon|as soon as)\b`)
	// A leading condition before the subject: "On shutdown, it ...".
	quietLead = analysisutil.LazyRegexp(`(?i)^(if|when|once|on|after|upon)\b[^,]*?,?\s+(it\s)`)
	bestEffor = analysisutil.LazyRegexp(`(?i)\bbest[- ]effort\b|\berrors? (are|is) (ignored|dropped|logged)\b`)
)

// contractClause reports whether clause, of the doc comment of a function
// named name, promises a quiet end.
func contractClause(name, clause string) bool {
	clause = strings.TrimSpace(clause)
	var lead, rest string
	switch {
	case strings.HasPrefix(clause, name+" "):
		rest = clause[len(name)+1:]
	case strings.HasPrefix(strings.ToLower(clause), "it "):
		rest = clause[3:]
	default:
		m := quietLead().FindStringSubmatchIndex(clause)
		if m == nil {
			return false
		}
		lead, rest = clause[:m[1]], clause[m[1]:]
	}
	rest = strings.TrimSpace(rest)
	if n := quietNil().FindStringIndex(rest); n != nil {
		// The end must be the condition of the nil: "On shutdown, it
		// returns nil", "returns nil when ctx is canceled"; not an end
		// the sentence tells of beside it ("returns nil and the process
		// exits as if everything shipped").
		if lead != "" && quietEnd().MatchString(lead) {
			return true
		}
		if c := quietCond().FindStringIndex(rest[n[1]:]); c != nil && quietEnd().MatchString(rest[n[1]+c[0]:]) {
			return true
		}
	}
	return quietUntil().MatchString(rest)
}

// mayEndQuietly reports whether f may end without an error on
// cancellation by contract: it is in package main (cancellation is the
// program's shutdown), its doc comment says it returns nil when stopped or
// works best-effort, it is a goroutine of an errgroup.Group (the group
// reports the first error), or it is a literal inside such a function.
func (s *state) mayEndQuietly(f *ctxflow.Func) bool {
	if s.pass.Pkg.Name() == "main" {
		return true
	}
	if d, ok := f.Node.(*ast.FuncDecl); ok && d.Doc != nil {
		text := strings.ReplaceAll(d.Doc.Text(), "\n", " ")
		if bestEffor().MatchString(text) {
			return true
		}
		for _, sentence := range strings.Split(text, ". ") {
			for _, clause := range strings.Split(sentence, "; ") {
				if contractClause(d.Name.Name, clause) {
					return true
				}
			}
		}
	}
	if f.Parent != nil {
		if q, ok := s.quiet[f.Parent]; ok && q {
			return true
		}
	}
	return false
}

// isCleanup reports whether name is a cleanup call's: one of the cleanup
// names, also unexported (shutdown for Shutdown).
func (s *state) isCleanup(name string) bool {
	if name == "" {
		return false
	}
	return s.cleanup[name] || s.cleanup[strings.ToUpper(name[:1])+name[1:]]
}

// inTeardown reports whether f is, or is a literal inside, a function or
// method named for tearing down (Stop, Close, Shutdown...): it runs every
// step whatever the others did, and logs a failed one on the way out.
func (s *state) inTeardown(f *ctxflow.Func) bool {
	for g := f; g != nil; g = g.Parent {
		if g.Obj != nil {
			return s.isCleanup(g.Obj.Name())
		}
	}
	return false
}

// groupGoroutine reports whether f is a literal run by a group
// ((*errgroup.Group).Go or TryGo, the runtime's scope.Go): returning nil
// there on cancellation is the group's idiom, since Wait reports the error
// that canceled the group.
func (s *state) groupGoroutine(f *ctxflow.Func) bool { return s.group[f.Node] }

// groupLosesCancel reports whether f, a literal run by a group its owner
// declares, returns into a Wait whose nil the owner passes on without
// testing a context after it: when the owner's caller cancels, every
// goroutine that returns nil on the group's Done makes Wait return nil,
// so the owner returns what they produced as complete. The idiom of returning
// nil there holds only when the owner looks at the context after Wait (or
// another goroutine returns the cancellation).
func (s *state) groupLosesCancel(f *ctxflow.Func) bool {
	r := s.runs[f.Node]
	owner := s.owner[f.Node]
	if r == nil || r.Group == nil || r.Unread || owner == nil || s.quiet[owner] {
		return false
	}
	// An owner that returns only its error may treat the end of its
	// context as its stop (the convention checkFiltered keeps too); one
	// that returns what the goroutines produced passes it off as complete.
	if analysisutil.ErrorResult(owner.Sig) < 0 || owner.Sig.Results().Len() < 2 || !analysisutil.TakesContext(owner.Sig) {
		return false
	}
	g := s.graphs.Func(owner.Node)
	if g == nil {
		return false
	}
	waits := 0
	tested := false
	ast.Inspect(owner.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || tested {
			return !tested
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Wait" {
			return true
		}
		if id, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || s.info.ObjectOf(id) != r.Group {
			return true
		}
		waits++
		p, ok := g.Locate(call)
		if !ok {
			tested = true // cannot tell: keep the idiom
			return false
		}
		if _, ok := g.Reaches(p, func(m ast.Node) bool { return m != call && s.res.ChecksCancel(m) }, nil); ok {
			tested = true
		}
		return true
	})
	return waits > 0 && !tested
}

// unreadResult reports whether f is a group literal whose errors no one
// reads (the group's Wait results are discarded): like a goroutine, it
// has no caller to mislead.
func (s *state) unreadResult(f *ctxflow.Func) bool { return s.unread[f.Node] }

// goLiterals returns the function literals started by `go func() {...}()`.
func goLiterals(ins *inspector.Inspector) map[ast.Node]bool {
	out := make(map[ast.Node]bool)
	for cur := range ins.Root().Preorder((*ast.GoStmt)(nil)) {
		if lit, ok := ast.Unparen(cur.Node().(*ast.GoStmt).Call.Fun).(*ast.FuncLit); ok {
			out[lit] = true
		}
	}
	return out
}

// bareReturnFixable reports whether a fix may insert a bare return into f:
// f returns nothing and is not a goroutine literal, whose signature the
// suite's untrackedgo fix may change to return an error (a bare return
// inserted alongside would then not compile).
func (s *state) bareReturnFixable(f *ctxflow.Func) bool {
	return f.Sig.Results().Len() == 0 && !s.goLit[f.Node]
}

// droppedCall returns the call of `_ = f(ctx)`, `_, _ = f(ctx)` or
// `v, _ := f(ctx)` when the error result is the one assigned to _.
func droppedCall(as *ast.AssignStmt) (*ast.CallExpr, bool) {
	if len(as.Rhs) != 1 || (as.Tok != token.ASSIGN && as.Tok != token.DEFINE) {
		return nil, false
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	return call, ok
}

// enclosingLoop returns the innermost for or range statement around cur
// within its function, or nil.
func enclosingLoop(cur inspector.Cursor) ast.Stmt { return analysisutil.EnclosingLoop(cur) }

// inRetryLoop reports whether the statement at cur sits inside a retry
// loop that never tests its context: retrycancel reports that loop, and
// the error handled at cur is one of the attempts it repeats. A retry loop
// that tests its context stops on cancellation, so a collection loop inside
// it is still this check's.
func (s *state) inRetryLoop(cur inspector.Cursor) bool { return s.res.InUncheckedRetryLoop(cur) }

// loopChecksCancel reports whether a loop tests for the end of a context in
// its condition or body, so it stops on cancellation by itself.
func (s *state) loopChecksCancel(loop ast.Stmt) bool { return s.res.LoopChecksCancel(loop) }

// describeLoop names what a loop walks, for messages.
func describeLoop(loop ast.Stmt) string {
	if r, ok := loop.(*ast.RangeStmt); ok {
		return "the loop over " + types.ExprString(r.X)
	}
	return "the loop"
}

// ctxFor returns the context expression to test in a fix inside f: the
// context call passes, when it is a plain name or field, else the nearest
// context in reach of f; "" when there is none.
func (s *state) ctxFor(f *ctxflow.Func, call *ast.CallExpr) string {
	if call != nil {
		for _, arg := range call.Args {
			if !analysisutil.IsContext(s.info.TypeOf(arg)) || s.res.Detached(arg) {
				continue
			}
			switch a := ast.Unparen(arg).(type) {
			case *ast.Ident:
				return a.Name
			case *ast.SelectorExpr:
				if _, ok := a.X.(*ast.Ident); ok {
					return types.ExprString(a)
				}
			}
		}
	}
	if len(f.Contexts) > 0 {
		return f.Contexts[0].Expr
	}
	return ""
}

// ctxOwned reports whether the context expression x belongs to the
// function's caller: a parameter (or r.Context() of a request parameter) or
// a local variable, not a field or package variable. A context held by a
// receiver ends when the object closes, a different contract.
func (s *state) ctxOwned(x ast.Expr) bool {
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		v, ok := s.info.ObjectOf(x).(*types.Var)
		return ok && !v.IsField() && v.Parent() != nil && v.Parent() != v.Pkg().Scope()
	case *ast.CallExpr:
		sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
		return ok && analysisutil.IsHTTPRequest(s.info.TypeOf(sel.X)) && sel.Sel.Name == "Context"
	}
	return false
}

func calleeName(call *ast.CallExpr) string {
	return types.ExprString(call.Fun)
}

func calleeShortName(info *types.Info, call *ast.CallExpr) string {
	if fn := analysisutil.Callee(info, call); fn != nil {
		return fn.Name()
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}
