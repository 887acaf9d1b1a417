package foldedtimeout

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/directives"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

//go:embed doc.go
var doc string

// Config is the check's configuration; the zero value is the default.
type Config struct {
	// Tests also reports findings in _test.go files.
	Tests bool `json:"tests"`
}

// New returns the check bound to cfg.
func New(cfg Config) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     "foldedtimeout",
		Doc:      analysisutil.MustExtractDoc(doc, "foldedtimeout"),
		URL:      "https://github.com/cancelcheck/cancelcheck/blob/main/docs/foldedtimeout.md",
		Requires: []*analysis.Analyzer{inspect.Analyzer, ctxflow.Analyzer, flow.Analyzer, directives.Analyzer},
		Run:      analysisutil.Finishing((&checker{cfg}).run),
	}
}

// Analyzer is the check with the default configuration.
var Analyzer = New(Config{})

type checker struct{ cfg Config }

// state is one run of the check on one package.
type state struct {
	cfg    Config
	pass   *analysis.Pass
	res    *ctxflow.Result
	graphs *flow.Result
	rep    *analysisutil.Reporter
	info   *types.Info
	rt     bool
	// opaque caches opaqueOf by type (nil: not opaque); reported
	// marks local types already reported (one finding per type).
	opaque   map[*types.TypeName]*opaqueType
	reported map[*types.TypeName]bool
	// folds groups the fmt.Errorf findings of each function, reported as
	// one finding per function when the run ends (one pattern, one
	// finding), in source order.
	folds     map[*ctxflow.Func][]analysis.Diagnostic
	foldOrder []*ctxflow.Func
	// ins and text: the variables holding a carrier's text, computed on
	// first use (textOf).
	ins  *inspector.Inspector
	text *carrierText
	// sentinelKeyed: the maps the package keys by a context sentinel,
	// computed on first use (checkMapLookup).
	sentinelKeyed map[types.Object]string
	// causeSet caches causeSetAt (nil: not computed).
	causeSet **ast.CallExpr
}

// textOf returns the carrier whose text the non-error expression e holds
// (a string built from err.Error() or a formatting of err, directly or
// through local variables), or nil.
func (s *state) textOf(e ast.Expr) ast.Expr {
	if analysisutil.IsError(s.info.TypeOf(e)) {
		return nil
	}
	if s.text == nil {
		s.text = s.computeCarrierText(s.ins)
	}
	return s.text.of(e)
}

func (c *checker) run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[ctxflow.Analyzer].(*ctxflow.Result)
	s := &state{
		cfg:      c.cfg,
		pass:     pass,
		res:      res,
		graphs:   pass.ResultOf[flow.Analyzer].(*flow.Result),
		info:     pass.TypesInfo,
		opaque:   make(map[*types.TypeName]*opaqueType),
		reported: make(map[*types.TypeName]bool),
		folds:    make(map[*ctxflow.Func][]analysis.Diagnostic),
	}
	if !res.ImportsContext {
		return analysisutil.NothingToReport(pass), nil
	}
	s.rep = analysisutil.NewReporter(pass)
	s.rt = res.ImportsRuntime()
	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	s.ins = ins
	filter := []ast.Node{
		(*ast.CallExpr)(nil), (*ast.CompositeLit)(nil), (*ast.BinaryExpr)(nil),
		(*ast.SwitchStmt)(nil), (*ast.CommClause)(nil), (*ast.IfStmt)(nil),
		(*ast.IndexExpr)(nil),
	}
	for cur := range ins.Root().Preorder(filter...) {
		if !c.cfg.Tests && strings.HasSuffix(pass.Fset.File(cur.Node().Pos()).Name(), "_test.go") {
			continue
		}
		switch n := cur.Node().(type) {
		case *ast.CallExpr:
			s.checkCall(cur, n)
		case *ast.CompositeLit:
			s.checkCompositeLit(cur, n)
		case *ast.BinaryExpr:
			s.checkCompare(cur, n)
		case *ast.SwitchStmt:
			s.checkSwitch(cur, n)
			if n.Tag == nil {
				for _, st := range n.Body.List {
					cc := st.(*ast.CaseClause)
					for _, e := range cc.List {
						s.checkTimeoutLabels(e, cc.Body)
					}
				}
			}
		case *ast.CommClause:
			s.checkDoneClause(cur, n)
		case *ast.IfStmt:
			s.checkTimeoutLabels(n.Cond, n.Body.List)
			s.checkCancelIf(cur, n)
			s.checkDeadlinePrediction(n)
		case *ast.IndexExpr:
			s.checkMapLookup(cur, n)
		}
	}
	s.flushFolds()
	s.checkCauses()
	s.rep.Finish()
	return nil, nil
}

// fold records an fmt.Errorf finding of the function at cur.
func (s *state) fold(cur inspector.Cursor, d analysis.Diagnostic) {
	f := s.res.Enclosing(cur)
	if f == nil {
		s.rep.Report(d)
		return
	}
	if _, ok := s.folds[f]; !ok {
		s.foldOrder = append(s.foldOrder, f)
	}
	s.folds[f] = append(s.folds[f], d)
}

// flushFolds reports the fmt.Errorf findings, one per function: the first,
// with the others as related places and their fixes merged into its fix.
func (s *state) flushFolds() {
	for _, f := range s.foldOrder {
		ds := s.folds[f]
		d := ds[0]
		if len(ds) > 1 {
			d.Message += fmt.Sprintf(" (and %d more in %s)", len(ds)-1, f.Name())
			var edits []analysis.TextEdit
			all := len(d.SuggestedFixes) == 1
			if all {
				edits = append(edits, d.SuggestedFixes[0].TextEdits...)
			}
			for _, o := range ds[1:] {
				d.Related = append(d.Related, analysis.RelatedInformation{Pos: o.Pos, End: o.End, Message: "formatted the same way here"})
				if len(o.SuggestedFixes) == 1 {
					edits = append(edits, o.SuggestedFixes[0].TextEdits...)
				} else {
					all = false
				}
			}
			if all {
				d.SuggestedFixes = []analysis.SuggestedFix{{Message: d.SuggestedFixes[0].Message + " at each place", TextEdits: edits}}
			}
		}
		s.rep.Report(d)
	}
}

// atLeast reports whether the file holding pos is compiled with Go at
// least v ("go1.20"). Unknown versions count as recent.
func (s *state) atLeast(pos token.Pos, v string) bool {
	file := analysisutil.FileOf(s.pass, pos)
	fv := ""
	if file != nil {
		fv = s.info.FileVersions[file]
	}
	if fv == "" {
		fv = s.pass.Pkg.GoVersion()
	}
	return fv == "" || version.Compare(fv, v) >= 0
}

// propagated reports whether the error value at cur reaches a caller or
// another goroutine: it is returned, assigned to something used other than
// by logging, sent, stored in a field or composite, or passed to a
// function. A value only logged, panicked or discarded is not.
func (s *state) propagated(cur inspector.Cursor) bool {
	for c := cur; ; c = c.Parent() {
		p := c.Parent()
		switch pn := p.Node().(type) {
		case *ast.ParenExpr, *ast.KeyValueExpr, *ast.CompositeLit:
			continue
		case *ast.UnaryExpr:
			if pn.Op == token.AND {
				continue
			}
			return false
		case *ast.CallExpr:
			if analysisutil.IsLogOrPanic(s.info, pn) {
				return false
			}
			if c.Node() == pn.Fun {
				return false
			}
			fn := analysisutil.Callee(s.info, pn)
			if analysisutil.IsFunc(fn, "errors", "Join") || analysisutil.IsFunc(fn, "fmt", "Errorf") {
				continue // the result is what matters
			}
			if gp, ok := p.Parent().Node().(*ast.CallExpr); ok && ast.Unparen(gp.Fun) != ast.Expr(pn) && analysisutil.IsLogOrPanic(s.info, gp) {
				// panic(vm.NewGoError(fmt.Errorf("...: %v", err))): what the
				// call makes of it is only panicked or logged.
				return false
			}
			return true
		case *ast.ReturnStmt, *ast.SendStmt:
			return true
		case *ast.AssignStmt:
			for i, r := range pn.Rhs {
				if r != c.Node() || i >= len(pn.Lhs) {
					continue
				}
				return s.targetUsed(c, pn.Lhs[i])
			}
			if len(pn.Rhs) == 1 && len(pn.Lhs) > 1 {
				return true
			}
			return false
		case *ast.ValueSpec:
			for i, v := range pn.Values {
				if v == c.Node() && i < len(pn.Names) {
					return s.targetUsed(c, pn.Names[i])
				}
			}
			return false
		default:
			return false
		}
	}
}

// targetUsed reports whether the assignment target lhs is used after the
// assignment other than by logging.
func (s *state) targetUsed(c inspector.Cursor, lhs ast.Expr) bool {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return true // a field, an element, a dereference: stored
	}
	if id.Name == "_" {
		return false
	}
	obj := s.info.ObjectOf(id)
	v, ok := obj.(*types.Var)
	if !ok {
		return false
	}
	if v.Parent() == s.pass.Pkg.Scope() {
		return true
	}
	f := s.res.Enclosing(c)
	if f == nil {
		return true
	}
	for g := f; g != nil; g = g.Parent {
		res := g.Sig.Results()
		for i := range res.Len() {
			if res.At(i) == v {
				// A named result, also of the function a deferred literal
				// runs in: its value is what the caller gets.
				return true
			}
		}
	}
	// Uses after the assignment, outside logging calls.
	return analysisutil.UsedOutsideLogsAfter(s.info, f.Body, obj, c.Node().End())
}

// source returns the text of n as written, or "" when the file cannot be
// read.
func (s *state) source(n ast.Node) string { return analysisutil.Source(s.pass, n) }

// cancelHandledBefore reports whether, on the way to cur, the function has
// already tested for cancellation and left: an earlier if statement of an
// enclosing block tests the context (ctx.Err() != nil, errors.Is(err,
// context.Canceled)) and returns. An error formatted after that is, in
// practice, not a cancellation.
func (s *state) cancelHandledBefore(cur inspector.Cursor) bool {
	for c := cur; c.Valid(); c = c.Parent() {
		switch c.Node().(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return false
		case ast.Stmt:
			for p, ok := c.PrevSibling(); ok; p, ok = p.PrevSibling() {
				is, ok := p.Node().(*ast.IfStmt)
				if !ok || len(is.Body.List) == 0 {
					continue
				}
				// ctx.Err() != nil, errors.Is(err, context.Canceled), or
				// `ctxErr := ctx.Err(); ctxErr != nil` (a variable defined
				// from a context's Err).
				if _, isTest := s.res.CancelTestOf(is.Cond); !isTest && !s.res.ChecksCancel(is.Cond) {
					continue
				}
				if _, ok := is.Body.List[len(is.Body.List)-1].(*ast.ReturnStmt); ok {
					return true
				}
			}
		}
	}
	return false
}

// inIsMethod reports whether cur is inside a method `Is(error) bool`,
// where comparing the target with == is the contract.
func (s *state) inIsMethod(cur inspector.Cursor) bool {
	for e := range cur.Enclosing((*ast.FuncDecl)(nil)) {
		d := e.Node().(*ast.FuncDecl)
		return d.Recv != nil && d.Name.Name == "Is"
	}
	return false
}
