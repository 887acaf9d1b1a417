package leaseleak

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/ctrlflow"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/cfg"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	"github.com/cancelcheck/cancelcheck/passes/flow"
	"github.com/cancelcheck/cancelcheck/passes/ownership"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct {
	// Leases names more acquire/release pairs: types of your own that must
	// be given back.
	Leases []Lease `json:"leases"`
	// Tests also reports findings in _test.go files.
	Tests bool `json:"tests"`
}

// Lease is one user lease: a function or method whose first result (or
// first non-error result) must be released by calling Release on it.
type Lease struct {
	// Acquire is "pkg/path.Func" or "(*pkg/path.T).Method" (or
	// "(pkg/path.T).Method").
	Acquire string `json:"acquire"`
	// Release is the name of the method that gives the lease back.
	Release string `json:"release"`
}

// New returns the check bound to cfg. A malformed lease in cfg makes every
// run of the check fail with an error naming it.
func New(cfg Config) *analysis.Analyzer {
	c := &checker{tests: cfg.Tests}
	for _, l := range cfg.Leases {
		x, err := parseLease(l)
		if err != nil {
			c.err = fmt.Errorf("leaseleak settings: %v", err)
			break
		}
		c.extra = append(c.extra, x)
	}
	return &analysis.Analyzer{
		Name:     "leaseleak",
		Doc:      analysisutil.MustExtractDoc(doc, "leaseleak"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/leaseleak.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctrlflow.Analyzer, ownership.Analyzer, directives.Analyzer, flow.Analyzer, ctxflow.Analyzer},
		Run:      analysisutil.Finishing(c.run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

func parseLease(l Lease) (*ownership.Extra, error) {
	if l.Release == "" {
		return nil, fmt.Errorf("lease %q has no release method", l.Acquire)
	}
	acq := strings.TrimSpace(l.Acquire)
	x := &ownership.Extra{}
	if strings.HasPrefix(acq, "(") {
		end := strings.Index(acq, ")")
		if end < 0 || end+2 >= len(acq) || acq[end+1] != '.' {
			return nil, fmt.Errorf("malformed acquire %q: want (*pkg/path.T).Method", acq)
		}
		recv := strings.TrimPrefix(acq[1:end], "*")
		dot := strings.LastIndex(recv, ".")
		if dot < 0 {
			return nil, fmt.Errorf("malformed acquire %q: want (*pkg/path.T).Method", acq)
		}
		x.Pkg, x.Recv, x.Name = recv[:dot], recv[dot+1:], acq[end+2:]
	} else {
		dot := strings.LastIndex(acq, ".")
		if dot < 0 || strings.LastIndex(acq, "/") > dot {
			return nil, fmt.Errorf("malformed acquire %q: want pkg/path.Func", acq)
		}
		x.Pkg, x.Name = acq[:dot], acq[dot+1:]
	}
	x.Index = -1 // first non-error result, resolved per call
	x.Kind = &ownership.Kind{
		ID: "user", Noun: "lease", Verb: "released", Release: []string{l.Release},
		Fix:         "%s." + l.Release + "()",
		Consequence: "what it holds is never given back",
	}
	return x, nil
}

type checker struct {
	tests bool
	extra []*ownership.Extra
	err   error // a malformed configuration
}

// state is the per-pass state.
type state struct {
	pass *analysis.Pass
	own  *ownership.Result
	cfgs *ctrlflow.CFGs
	rep  *analysisutil.Reporter
	ins  *inspector.Inspector
	// paths answers path queries on the functions' graphs.
	paths *flow.Result
	// flow holds the package's functions and their facts (MainLike).
	flow *ctxflow.Result
	// inferredPairs caches the lock kinds of ownership's inferred pairs
	// by their acquiring method, so that a kind compares equal to itself.
	inferredPairs map[*types.Func]*lockKind
}

func (c *checker) run(pass *analysis.Pass) (any, error) {
	if c.err != nil {
		return nil, c.err
	}
	own := pass.ResultOf[ownership.Analyzer].(*ownership.Result)
	if len(c.extra) > 0 {
		own = own.WithExtra(c.extra)
	}
	s := &state{
		pass:  pass,
		own:   own,
		cfgs:  pass.ResultOf[ctrlflow.Analyzer].(*ctrlflow.CFGs),
		rep:   analysisutil.NewReporter(pass),
		ins:   pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
		paths: pass.ResultOf[flow.Analyzer].(*flow.Result),
		flow:  pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result),
	}
	for cur := range s.ins.Root().Preorder((*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)) {
		var g *cfg.CFG
		var body *ast.BlockStmt
		var ftype *ast.FuncType
		switch n := cur.Node().(type) {
		case *ast.FuncDecl:
			if n.Body == nil {
				continue
			}
			if fn, ok := pass.TypesInfo.Defs[n.Name].(*types.Func); ok && s.flow.MainLike(fn) && n.Name.Name != "init" {
				continue // returning from main (or run, its whole body) ends the process and all it holds
			}
			g, body, ftype = s.cfgs.FuncDecl(n), n.Body, n.Type
		case *ast.FuncLit:
			g, body, ftype = s.cfgs.FuncLit(n), n.Body, n.Type
		}
		if g == nil || s.rep.InGenerated(body.Pos()) {
			continue
		}
		if !c.tests && strings.HasSuffix(pass.Fset.File(body.Pos()).Name(), "_test.go") {
			continue
		}
		fn := &function{s: s, cur: cur, cfg: g, body: body, ftype: ftype}
		fn.check()
	}
	s.rep.Finish()
	return nil, nil
}

// function is one function body under inspection.
type function struct {
	s     *state
	cur   inspector.Cursor
	cfg   *cfg.CFG
	body  *ast.BlockStmt
	ftype *ast.FuncType
	// lockLeaks holds, per lock, the returns already reported as reached
	// with it held: a re-Lock leaking through the same returns is the
	// same bug.
	lockLeaks map[string]map[*ast.ReturnStmt]bool
	// closures maps local variables bound once to a function literal
	// (computed on first use by closureOf).
	closures map[types.Object]*ast.FuncLit
	// reported keys the leaks already reported, by holder and returns
	// (lease.report).
	reported map[string]bool
	// infeasible maps error tests that cannot hold to the branch that
	// cannot be taken (infeasibleConds).
	infeasible map[ast.Expr]bool
}

func (f *function) info() *types.Info { return f.s.pass.TypesInfo }

// newTimers reports whether the file holding pos has Go 1.23 or later
// semantics for timers.
func (f *function) newTimers(pos token.Pos) bool { return f.goAtLeast(pos, "go1.23") }

// knownVersion reports whether the Go version of the file holding pos is
// known (module mode).
func (f *function) knownVersion(pos token.Pos) bool {
	file := analysisutil.FileOf(f.s.pass, pos)
	return file != nil && (f.info().FileVersions[file] != "" || f.s.pass.Pkg.GoVersion() != "")
}

// goAtLeast reports whether the file holding pos has Go version v or later.
// A file of unknown version (GOPATH mode) has the GODEBUG defaults of Go
// 1.20.
func (f *function) goAtLeast(pos token.Pos, v string) bool {
	file := analysisutil.FileOf(f.s.pass, pos)
	if file == nil {
		return false
	}
	fv := f.info().FileVersions[file]
	if fv == "" {
		fv = f.s.pass.Pkg.GoVersion()
	}
	return fv != "" && version.Compare(fv, v) >= 0
}

func (f *function) check() {
	f.checkReleaser()
	f.checkTimerFuncs()
	f.checkAfterDone()
	f.checkReleaseContext()
	for _, b := range f.cfg.Blocks {
		if !b.Live {
			continue
		}
		for i, n := range b.Nodes {
			f.checkNode(b, i, n)
		}
	}
}

// checkNode looks for an acquisition in node n (b.Nodes[i]).
func (f *function) checkNode(b *cfg.Block, i int, n ast.Node) {
	var lhs []ast.Expr
	var call *ast.CallExpr
	define := false
	switch n := n.(type) {
	case *ast.AssignStmt:
		if len(n.Rhs) != 1 {
			return
		}
		call, _ = ast.Unparen(n.Rhs[0]).(*ast.CallExpr)
		lhs = n.Lhs
		define = n.Tok == token.DEFINE
	case *ast.ValueSpec:
		if len(n.Values) != 1 {
			return
		}
		call, _ = ast.Unparen(n.Values[0]).(*ast.CallExpr)
		for _, id := range n.Names {
			lhs = append(lhs, id)
		}
		define = true
	case *ast.ExprStmt:
		call, _ = ast.Unparen(n.X).(*ast.CallExpr)
	case *ast.SendStmt:
		f.checkChanSemaphore(b, i, n)
		return
	case ast.Expr:
		// A condition that asks a pair's acquire whether it took
		// something: if !sem.TryAcquire() { return }.
		if base, _ := stripNot(n); base != nil {
			if c, ok := base.(*ast.CallExpr); ok {
				f.checkLock(b, i, n, c, nil)
			}
		}
		return
	}
	if call == nil {
		return
	}
	if f.checkLock(b, i, n, call, lhs) {
		return
	}
	f.checkDoubleUnlock(b, i, n, call)
	a := f.s.own.Acquisition(call)
	if a == nil {
		if a = f.inferred(call, lhs); a == nil {
			return
		}
	}
	if a.Index < 0 {
		a.Index = firstNonError(a.Fn)
		if a.Index < 0 {
			return
		}
	}
	if a.Kind.Timer && f.newTimers(call.Pos()) {
		return // collected when unreferenced, since Go 1.23
	}
	l := &lease{f: f, acq: a, call: call, stmt: n, block: b, index: i, define: define}
	nres := f.info().TypeOf(call)
	if len(lhs) == 0 {
		// A bare call statement (http.Get(url), db.Query(q)) drops every
		// result, the lease with them.
		l.reportDiscarded(nil)
		return
	}
	if t, ok := nres.(*types.Tuple); ok && len(lhs) != t.Len() || !ok && len(lhs) > 1 {
		return
	}
	id, ok := ast.Unparen(lhs[a.Index]).(*ast.Ident)
	if !ok {
		// Stored in a field, slice or map: handed off, unless the field
		// is one of a value this function made and still holds
		// (cl := &closer{}; ctx, cl.cancel = context.WithCancel(ctx)):
		// that value holds the lease now.
		if id, l.acq = f.freshHolder(lhs[a.Index], a); id == nil {
			return
		}
	}
	if id.Name == "_" {
		if a.Err >= 0 && a.Err < len(lhs) {
			if eid, ok := ast.Unparen(lhs[a.Err]).(*ast.Ident); ok && eid.Name != "_" {
				l.errObj = f.info().ObjectOf(eid)
			}
		}
		if l.errObj != nil && !l.successReturns() {
			return // only failure is expected here (_, err := c.Get(bad); if err == nil { t.Fatal() })
		}
		l.reportDiscarded(id)
		return
	}
	l.obj = f.info().ObjectOf(id)
	l.id = id
	if v, ok := l.obj.(*types.Var); !ok || v.Pos() < f.ftype.Pos() || v.Pos() >= f.body.End() {
		return // a package variable or one of an enclosing function: handed off
	}
	if a.Err >= 0 && a.Err < len(lhs) {
		if eid, ok := ast.Unparen(lhs[a.Err]).(*ast.Ident); ok && eid.Name != "_" {
			l.errObj = f.info().ObjectOf(eid)
		}
	}
	if l.obj == nil {
		return
	}
	if a.Err < 0 {
		l.okObj = okResult(f.info(), f.s.pass.Pkg, f.s.pass.Files, call, lhs, a.Index)
	}
	l.check()
}

// freshHolder reports, for a lease assigned to a field x.f, whether x is
// a local variable the function made itself (x := &T{...}, x := T{...},
// var x T) and returns x with an acquisition whose kind is released
// through that field (x.f(), x.f.Close()) or by any method of x's type,
// which may release it. Nested fields, and kinds already released
// through a field (a response's Body), are left alone.
func (f *function) freshHolder(e ast.Expr, a *ownership.Acquisition) (*ast.Ident, *ownership.Acquisition) {
	info := f.info()
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || a.Kind.Field != "" {
		return nil, nil
	}
	x, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return nil, nil
	}
	if s := info.Selections[sel]; s == nil || s.Kind() != types.FieldVal || len(s.Index()) != 1 {
		return nil, nil
	}
	v, ok := info.ObjectOf(x).(*types.Var)
	if !ok || v.Pos() < f.body.Pos() || v.Pos() >= f.body.End() || !f.madeHere(v) {
		return nil, nil
	}
	return x, heldIn(a, sel.Sel.Name, v)
}

// heldIn returns the acquisition a as held in the field of the value v
// (cl.cancel, w.cancel): released through that field (cl.cancel()) or
// by any method of v's type, which may release what it holds.
func heldIn(a *ownership.Acquisition, field string, v *types.Var) *ownership.Acquisition {
	k := *a.Kind
	k.Field = field
	k.Release = slices.Clone(k.Release)
	if k.Fix == "%s()" {
		k.Fix = "%s." + field + "()"
	} else {
		k.Fix = ""
	}
	for _, m := range typeutil.IntuitiveMethodSet(v.Type(), nil) {
		k.Release = append(k.Release, m.Obj().Name())
	}
	acq := *a
	acq.Kind = &k
	return &acq
}

// heldBy returns, when the statement n puts the lease in a field of a
// composite literal that it assigns to a new local variable (w :=
// &watcher{cancel: cancel}, s := session{conn: c}), a lease on that
// variable: the value the function made holds the lease now, released
// through the field (w.cancel()) or by any method of its type, and
// handed on with the value (returned, stored, passed). A return that
// drops the value drops the lease. Kinds released through a field of
// their own (a response's Body) are left alone, as freshHolder does.
func (l *lease) heldBy(n ast.Node) *lease {
	f := l.f
	info := f.info()
	as, ok := n.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) || l.kind().Field != "" {
		return nil
	}
	for i, rhs := range as.Rhs {
		e := ast.Unparen(rhs)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		lit, ok := e.(*ast.CompositeLit)
		if !ok {
			continue
		}
		if _, isStruct := info.TypeOf(lit).Underlying().(*types.Struct); !isStruct {
			continue
		}
		var field *ast.Ident
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if vid, ok := ast.Unparen(kv.Value).(*ast.Ident); ok && l.objs[info.Uses[vid]] {
				field, _ = kv.Key.(*ast.Ident)
			}
		}
		id, ok := as.Lhs[i].(*ast.Ident)
		if field == nil || !ok || id.Name == "_" {
			continue
		}
		v, ok := info.Defs[id].(*types.Var)
		if !ok {
			continue
		}
		g := f.s.paths.Func(f.cur.Node())
		if g == nil {
			return nil
		}
		p, ok := g.Locate(n)
		if !ok {
			return nil
		}
		return &lease{f: f, acq: heldIn(l.acq, field.Name, v), call: l.call, stmt: n, block: p.Block, index: p.Index, id: id, obj: v}
	}
	return nil
}

// madeHere reports whether v, a local variable, is defined by a
// composite literal, &T{...} or new(T), or declared without a value.
func (f *function) madeHere(v *types.Var) bool {
	info := f.info()
	made := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE || len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && info.Defs[id] == v {
					made = isFresh(info, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if info.Defs[id] == v {
					made = len(n.Values) == 0 || len(n.Values) == len(n.Names) && isFresh(info, n.Values[i])
				}
			}
		}
		return true
	})
	return made
}

func isFresh(info *types.Info, e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		return true
	case *ast.UnaryExpr:
		_, ok := ast.Unparen(e.X).(*ast.CompositeLit)
		return ok && e.Op == token.AND
	case *ast.CallExpr:
		return analysisutil.IsBuiltin(info, e, "new")
	}
	return false
}

func firstNonError(fn *types.Func) int {
	res := fn.Type().(*types.Signature).Results()
	for i := range res.Len() {
		if !analysisutil.IsErrorInterface(res.At(i).Type()) {
			return i
		}
	}
	return -1
}
