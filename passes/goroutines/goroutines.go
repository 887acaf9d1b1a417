package goroutines

import (
	"cmp"
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"reflect"
	"slices"
	"sync"

	goanalysis "golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

//go:embed doc.go
var doc string

// Analyzer computes the goroutines of a package, how each is joined, and
// which result channels are orphaned. Its result is a *Result; it exports
// JoinsParam, Spawns and Bound facts.
var Analyzer = &goanalysis.Analyzer{
	Name:       "goroutines",
	Doc:        analysisutil.MustExtractDoc(doc, "goroutines"),
	URL:        "https://github.com/cancelcheck/cancelcheck/tree/main/passes/goroutines",
	Requires:   []*goanalysis.Analyzer{inspect.Analyzer, ctxflow.Analyzer, flow.Analyzer},
	ResultType: reflect.TypeFor[*Lazy](),
	FactTypes:  []goanalysis.Fact{(*JoinsParam)(nil), (*Spawns)(nil), (*Bound)(nil)},
	Run:        run,
}

// Lazy is the pass's result: the *Result, computed when a check first asks
// for it. A unit vetted only for its facts (a dependency, which go vet
// analyzes with the fact-producing analyzers alone) never asks, and so
// pays only for the facts.
type Lazy struct {
	once    sync.Once
	compute func() *Result
	res     *Result

	info   *types.Info
	ins    *inspector.Inspector
	groups groupRuns
}

// Get returns the result, computing it on the first call. It is safe for
// concurrent use by the checks that require the pass.
func (l *Lazy) Get() *Result {
	l.once.Do(func() { l.res = l.compute() })
	return l.res
}

// Result lists the goroutines of a package and the orphaned channels.
type Result struct {
	// Goroutines lists the goroutines started in the package, in source
	// order.
	Goroutines []*Goroutine
	// Orphans lists result channels whose sends block forever once their
	// owner stops receiving.
	Orphans []*Orphan
	// Stalls lists receives that never complete because the only sender
	// returned on cancellation without sending or closing.
	Stalls []*Stall
	// GroupStarts lists goroutines started on a group (errgroup,
	// WaitGroup.Go, scope) that their owner can return without waiting for.
	GroupStarts []*GroupStart
	// Futures lists unbuffered channels handed to the caller that one
	// goroutine sends a single result on.
	Futures []*Future
	// Streams lists channels handed to the caller that one goroutine feeds
	// in a loop with sends that watch nothing.
	Streams []*Stream
	// Registered lists unbuffered reply channels registered in a map
	// that their maker can stop waiting on without taking them out.
	Registered []*Registered
	// Unwaited lists shutdown methods that signal the type's goroutines
	// and return without waiting on the handle its other shutdown waits
	// on.
	Unwaited []*Unwaited
	// ClosedUnder lists releases of what goroutines use right after
	// their context is canceled, with no wait between.
	ClosedUnder []*ClosedUnder
}

// Goroutine is one goroutine start.
type Goroutine struct {
	// Start is the *ast.GoStmt, or the *ast.CallExpr of a helper with the
	// Spawns fact.
	Start ast.Node
	// Owner is the function whose body starts the goroutine.
	Owner *ctxflow.Func
	// Lit is the goroutine's body when it is a function literal.
	Lit *ast.FuncLit
	// Callee is the function a `go f(x)` statement runs, or nil.
	Callee *types.Func
	// Loop is the innermost loop of Owner around Start, or nil.
	Loop ast.Stmt

	// Join describes the evidence that the goroutine is joined or bound
	// ("WaitGroup wg", "channel done", "bound", ...); "" when there is none.
	Join string
	// Bound is true for worker loops and watchers of a context or channel.
	Bound bool
	// Uses is the owner's state the goroutine uses, most telling first.
	Uses []Use
	// Unjoined is where Owner returns, on a path from Start, without
	// waiting for the goroutine; nil when every path joins it or Owner
	// never returns. For a statement-less function end it is the closing
	// brace's position, see UnjoinedPos.
	Unjoined    ast.Node
	UnjoinedPos token.Pos
	// AddInside is a WaitGroup.Add call inside the goroutine that counts
	// it (AddCountsSelf: the goroutine calls Done on the same group) or is
	// its first statement.
	AddInside     *ast.CallExpr
	AddCountsSelf bool
	// SkipsDone is a path on which the goroutine ends without calling Done
	// on the WaitGroup it calls Done on elsewhere, or nil.
	SkipsDone *SkippedDone
	// Orphaned is true when orphansend reports a send or receive of this
	// goroutine; untrackedgo leaves it alone.
	Orphaned bool
	// Untracked is set when the goroutine, started by a method of a type
	// whose other goroutines are counted in a WaitGroup field that its
	// shutdown waits on, is not counted in it.
	Untracked *Untracked
	// Endless is set when no path through the goroutine ends and its
	// owner's type has a shutdown method that therefore cannot end it.
	Endless *Endless
	// Stranded is set when the goroutine ranges over a channel of its
	// owner that the owner leaves open on some path.
	Stranded *Stranded
	// Group is the group (as written: g, wg) whose Go runs Owner, a
	// function literal, when the goroutine is started there outside the
	// group: the Wait of Owner's caller does not wait for it.
	Group ast.Expr
}

// JoinedOnEveryPath is the Join of a goroutine whose owner waits for it
// (a local WaitGroup, a channel it signals) on every path from its start
// to the owner's return.
const JoinedOnEveryPath = "joined on every path"

// UseKind says which owner state a goroutine uses.
type UseKind int

const (
	UseResponse  UseKind = iota // the http.ResponseWriter of a handler owner
	UseRequest                  // the *http.Request of a handler owner
	UseWrite                    // writes a local variable of the owner
	UseContext                  // the owner's context, or one derived from it
	UseWaitGroup                // a WaitGroup of the owner that counts it, skipped on some path
)

// Use is one piece of owner state used by a goroutine.
type Use struct {
	Kind UseKind
	Obj  types.Object
	Pos  token.Pos
}

// Orphan is a channel made by a function whose senders block forever once
// the function stops receiving from it.
type Orphan struct {
	Chan  *types.Var
	Make  *ast.CallExpr // make(chan T[, n])
	Cap   int           // the constant buffer size
	Owner *ctxflow.Func
	// Senders are the goroutines sending on Chan; Sends their blocking
	// sends (nil when the send is in a called function).
	Senders []*Goroutine
	Sends   []*ast.SendStmt
	// Many is true when the number of sends is not known (senders started
	// in a loop, or sending in a loop).
	Many bool
	// Count is the number of sends when !Many.
	Count int
	// SenderLoop is the loop of Owner starting the senders, when Many
	// because of it.
	SenderLoop ast.Stmt
	// Exit is where Owner returns while sends are pending: a
	// *ast.ReturnStmt, or nil for the end of the function (ExitPos).
	Exit    ast.Node
	ExitPos token.Pos
	// Via is the select clause the owner took instead of receiving, or nil.
	Via *ast.CommClause
}

// Stall is a receive that never completes: the goroutine that should send
// returns on cancellation without sending on or closing the channel.
type Stall struct {
	Chan   *types.Var
	Recv   ast.Node // the receive expression or range statement
	Sender *Goroutine
	// Return is where the sender returns without sending (or nil for its
	// end), after Via, the clause or condition that observed cancellation.
	Return ast.Node
	Via    ast.Node
}

type analysis struct {
	pass   *goanalysis.Pass
	info   *types.Info
	ins    *inspector.Inspector
	flow   *ctxflow.Result
	graphs *flow.Result
	decls  map[*types.Func]*ast.FuncDecl
	// tracked caches trackedFields.
	tracked   map[*types.Var]trackedField
	summaries map[*types.Func]*summary
	// computing, batch and cyclic drive summaryOf's fixed point: the
	// summaries being computed, those computed under the outermost one,
	// and whether a call reached one still being computed.
	computing map[*types.Func]bool
	batch     []*types.Func
	cyclic    bool
	owners    map[ast.Node]*owner
	res       *Result
	// roomy holds the result channels whose buffer has room for every
	// send of their senders (one slot per sender, each sending once), so
	// no send blocks, whoever stops receiving.
	roomy map[*types.Var]bool
	// topOf maps a goroutine started by another goroutine of an owner to
	// the one the owner starts itself (orphans).
	topOf map[*Goroutine]*Goroutine
}

func run(pass *goanalysis.Pass) (any, error) {
	a := &analysis{
		pass:      pass,
		info:      pass.TypesInfo,
		ins:       pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		flow:      pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result),
		graphs:    pass.ResultOf[flow.Analyzer].(*flow.Result),
		decls:     map[*types.Func]*ast.FuncDecl{},
		summaries: map[*types.Func]*summary{},
		computing: map[*types.Func]bool{},
		owners:    map[ast.Node]*owner{},
		res:       &Result{},
		roomy:     map[*types.Var]bool{},
		topOf:     map[*Goroutine]*Goroutine{},
	}
	hasGo := false
	for c := range a.ins.Root().Preorder((*ast.FuncDecl)(nil), (*ast.GoStmt)(nil)) {
		switch n := c.Node().(type) {
		case *ast.FuncDecl:
			if fn, ok := a.info.Defs[n.Name].(*types.Func); ok && n.Body != nil {
				a.decls[fn] = n
			}
		case *ast.GoStmt:
			hasGo = true
		}
	}
	a.exportFacts()
	if !hasGo && !a.importsSpawner() {
		return &Lazy{compute: func() *Result { return a.res }, info: a.info, ins: a.ins}, nil
	}
	return &Lazy{compute: func() *Result { return a.goroutines() }, info: a.info, ins: a.ins}, nil
}

// goroutines finds the package's goroutine starts and orphaned channels
// and classifies them.
func (a *analysis) goroutines() *Result {
	for c := range a.ins.Root().Preorder((*ast.GoStmt)(nil), (*ast.CallExpr)(nil)) {
		switch n := c.Node().(type) {
		case *ast.GoStmt:
			g := &Goroutine{Start: n}
			switch fun := ast.Unparen(n.Call.Fun).(type) {
			case *ast.FuncLit:
				g.Lit = fun
			case *ast.Ident:
				if g.Lit = a.boundLit(c, fun); g.Lit == nil {
					g.Callee = analysisutil.Callee(a.info, n.Call)
				}
			default:
				g.Callee = analysisutil.Callee(a.info, n.Call)
			}
			a.add(c, g)
		case *ast.CallExpr:
			if _, isGo := c.Parent().Node().(*ast.GoStmt); isGo {
				continue
			}
			for _, i := range a.spawnArgs(n) {
				if lit, ok := ast.Unparen(n.Args[i]).(*ast.FuncLit); ok {
					a.add(c, &Goroutine{Start: n, Lit: lit})
				}
			}
			if len(n.Args) == 1 && isGroupGo(analysisutil.Callee(a.info, n)) {
				a.groupStart(c, n)
			}
		}
	}
	for _, o := range a.ownersInOrder() {
		a.orphans(o)
		a.futures(o)
		a.streams(o)
	}
	a.futureCallers()
	for _, g := range a.res.Goroutines {
		a.classify(g)
	}
	a.registries()
	a.unwaitedShutdowns()
	for _, o := range a.ownersInOrder() {
		a.closedUnder(o)
	}
	return a.res
}

// importsSpawner reports whether the package may call a spawner helper of
// another package: cheap upper bound, any import.
func (a *analysis) importsSpawner() bool { return len(a.pass.Pkg.Imports()) > 0 }

// add records g, started at cursor c.
func (a *analysis) add(c inspector.Cursor, g *Goroutine) {
	f := a.flow.Enclosing(c)
	if f == nil {
		return
	}
	g.Owner = f
	g.Loop = analysisutil.EnclosingLoop(c)
	o := a.ownerOf(f)
	if o == nil {
		return
	}
	o.gos = append(o.gos, g)
	a.res.Goroutines = append(a.res.Goroutines, g)
}

// exportFacts exports JoinsParam, Spawns and Bound for the package's
// functions, in source order.
func (a *analysis) exportFacts() {
	fns := slices.SortedFunc(maps.Keys(a.decls), func(x, y *types.Func) int { return cmp.Compare(x.Pos(), y.Pos()) })
	for _, fn := range fns {
		if !fn.Exported() {
			continue // only importers read facts; see analysisutil.ExportFuncFact
		}
		s := a.summaryOf(fn)
		if s == nil {
			continue
		}
		if p := sortedKeys(s.joins); len(p) > 0 {
			analysisutil.ExportFuncFact(a.pass, fn, &JoinsParam{Params: p})
		}
		if p := sortedKeys(s.spawns); len(p) > 0 {
			analysisutil.ExportFuncFact(a.pass, fn, &Spawns{Params: p})
		}
		if s.bound {
			analysisutil.ExportFuncFact(a.pass, fn, new(Bound))
		}
	}
}

// owner is per-function state shared by the goroutines a function starts.
type owner struct {
	fn    *ctxflow.Func
	graph *flow.Graph
	gos   []*Goroutine
	comms map[ast.Node]bool // select comm statements (evaluated in the block before the select)
	// ctxs are the owner's contexts: context parameters, request
	// parameters, and locals derived from them.
	ctxs map[types.Object]bool
	// canceled are contexts the owner derives and cancels in a defer: a
	// goroutine using one ends when the owner returns (dialParallel's
	// racers), it is bound to the owner's return.
	canceled map[types.Object]bool
	// stored are contexts the owner derives and whose cancel function it
	// stores in a map or a field that outlives it (a job registry): the
	// goroutine using one is owned, and stopped, by whoever holds it.
	stored map[types.Object]bool
	// w and r are the parameters of an http handler owner.
	w, r types.Object
}

func (a *analysis) ownerOf(f *ctxflow.Func) *owner {
	if o, ok := a.owners[f.Node]; ok {
		return o
	}
	g := a.graphs.Func(f.Node)
	if g == nil {
		a.owners[f.Node] = nil
		return nil
	}
	o := &owner{fn: f, graph: g, comms: map[ast.Node]bool{}, ctxs: map[types.Object]bool{}, canceled: map[types.Object]bool{}, stored: map[types.Object]bool{}}
	cancelOf := map[types.Object]types.Object{} // cancel func -> its context
	a.owners[f.Node] = o
	params := f.Sig.Params()
	for i := range params.Len() {
		p := params.At(i)
		switch {
		case analysisutil.IsContext(p.Type()):
			o.ctxs[p] = true
		case analysisutil.IsHTTPRequest(p.Type()):
			o.r = p
		case analysisutil.IsNamed(p.Type(), "net/http", "ResponseWriter"):
			o.w = p
		}
	}
	if o.w == nil || o.r == nil {
		// Not a handler: a request it is given is data to hand over
		// (RoundTrip, a handler scheduler), not its call's context.
		o.w, o.r = nil, nil
	} else {
		o.ctxs[o.r] = true
	}
	if lit, ok := f.Node.(*ast.FuncLit); ok && a.waitedGroup(lit, f.Parent) != nil {
		// A function run by a group its caller waits for does its
		// caller's work, under its caller's contexts.
		if po := a.ownerOf(f.Parent); po != nil {
			for ctx := range po.ctxs {
				if _, isVar := ctx.(*types.Var); isVar && !po.canceled[ctx] && !po.stored[ctx] && (po.r == nil || ctx != po.r) {
					o.ctxs[ctx] = true
				}
			}
		}
	}
	ast.Inspect(f.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			if n.Comm != nil {
				o.comms[n.Comm] = true
			}
		case *ast.AssignStmt:
			a.storedCancels(o, n, cancelOf)
			// ctx2, cancel := context.WithTimeout(ctx, d); ctx := r.Context()
			if len(n.Rhs) != 1 || len(n.Lhs) == 0 {
				return true
			}
			if a.derivedFrom(n.Rhs[0], o.ctxs) {
				if obj := rootObj(a.info, n.Lhs[0]); obj != nil && analysisutil.IsContext(obj.Type()) {
					o.ctxs[obj] = true
					if len(n.Lhs) == 2 {
						if a.outlivesOwner(o, n.Lhs[1]) {
							// ctx, s.cancel = context.WithCancel(ctx): the
							// cancel goes straight to the owner's owner.
							o.stored[obj] = true
						} else if c := rootObj(a.info, n.Lhs[1]); c != nil {
							cancelOf[c] = obj
						}
					}
				}
			}
		case *ast.DeferStmt:
			if id, ok := ast.Unparen(n.Call.Fun).(*ast.Ident); ok {
				if ctx := cancelOf[a.info.Uses[id]]; ctx != nil {
					o.canceled[ctx] = true
				}
			}
		}
		return true
	})
	return o
}

// derivedFrom reports whether e is a context derived from one of ctxs:
// context.WithX(c, ...), r.Context(), or a call passing c and returning a
// context.
func (a *analysis) derivedFrom(e ast.Expr, ctxs map[types.Object]bool) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && analysisutil.IsMethod(analysisutil.Callee(a.info, call), "net/http", "Request", "Context") {
		return ctxs[rootObj(a.info, sel.X)]
	}
	if len(call.Args) == 0 {
		return false
	}
	fn := analysisutil.Callee(a.info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "context" || fn.Name() == "WithoutCancel" {
		return false
	}
	obj := rootObj(a.info, call.Args[0])
	return obj != nil && ctxs[obj]
}

func (a *analysis) ownersInOrder() []*owner {
	var out []*owner
	seen := map[*owner]bool{}
	for _, g := range a.res.Goroutines {
		if o := a.owners[g.Owner.Node]; o != nil && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// inspectNode visits n but not the bodies of function literals in it.
func inspectNode(n ast.Node, f func(ast.Node) bool) {
	ast.Inspect(n, func(m ast.Node) bool {
		if _, ok := m.(*ast.FuncLit); ok {
			return false
		}
		return m != nil && f(m)
	})
}

// cursor returns the cursor of n, found by position (a binary search)
// rather than by a walk.
func (a *analysis) cursor(n ast.Node) (inspector.Cursor, bool) {
	if c, ok := a.ins.Root().FindByPos(n.Pos(), n.End()); ok {
		for ; c.Valid(); c = c.Parent() {
			if c.Node() == n {
				return c, true
			}
			if c.Node().Pos() < n.Pos() || c.Node().End() > n.End() {
				break
			}
		}
	}
	return analysisutil.FindNode(a.ins.Root(), n)
}
