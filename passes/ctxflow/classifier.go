package ctxflow

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// Verdict is what a classifier returns for one kind of error.
type Verdict int

const (
	VerdictUnknown Verdict = iota // some paths say true, some false, or it cannot tell
	VerdictTrue                   // every path that returns says true
	VerdictFalse                  // every path that returns says false
)

// ClassifiesCancel is an object fact on a *types.Func that takes an error
// (parameter Param) and returns a bool (result Result), with its verdict
// when the error is context.Canceled (OnCanceled) and when it is
// context.DeadlineExceeded (OnDeadline). The verdicts are read off the
// body's paths under that error: `err != nil` holds, errors.Is(err, X)
// holds only for that sentinel, errors.As holds only for targets whose
// interface the sentinel implements (DeadlineExceeded is a net.Error), and
// any other condition may go either way. A retry predicate
// (`shouldRetry(err)`, `isTransient(err)`) that says true for a
// cancellation makes `if !shouldRetry(err) { return err }` a retry on it.
type ClassifiesCancel struct {
	Param, Result          int
	OnCanceled, OnDeadline Verdict
}

// AFact marks ClassifiesCancel as an analysis fact.
func (*ClassifiesCancel) AFact() {}

func (*ClassifiesCancel) String() string { return "classifiesCancel" }

// ClassifierOf returns the ClassifiesCancel fact of fn, from this
// package's functions or an import, or nil.
func (r *Result) ClassifierOf(fn *types.Func) *ClassifiesCancel {
	if fn == nil {
		return nil
	}
	if fn.Pkg() == r.pass.Pkg {
		return r.classifiers[fn.Origin()]
	}
	f := new(ClassifiesCancel)
	if r.pass.ImportObjectFact(fn.Origin(), f) {
		return f
	}
	return nil
}

// computeClassifiers finds the package's functions of an error that return
// a bool with a known verdict on a cancellation.
func (r *Result) computeClassifiers(pass *analysis.Pass) {
	for _, f := range r.Funcs {
		if f.Obj == nil || f.Body == nil {
			continue
		}
		param, result := -1, -1
		for i := range f.Sig.Params().Len() {
			if analysisutil.IsError(f.Sig.Params().At(i).Type()) {
				param = i
				break
			}
		}
		for i := range f.Sig.Results().Len() {
			if analysisutil.IsBool(f.Sig.Results().At(i).Type()) {
				result = i
				break
			}
		}
		if param < 0 || result < 0 {
			continue
		}
		errVar := f.Sig.Params().At(param)
		if !flow.Mentions(f.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			return ok && r.info.Uses[id] == errVar
		}) {
			continue // a constant policy or a stub: it does not look at the error
		}
		c := &ClassifiesCancel{
			Param: param, Result: result,
			OnCanceled: r.verdictOn(f, errVar, result, "Canceled"),
			OnDeadline: r.verdictOn(f, errVar, result, "DeadlineExceeded"),
		}
		if c.OnCanceled == VerdictUnknown && c.OnDeadline == VerdictUnknown {
			continue
		}
		if r.classifiers == nil {
			r.classifiers = make(map[*types.Func]*ClassifiesCancel)
		}
		r.classifiers[f.Obj] = c
		analysisutil.ExportFuncFact(pass, f.Obj, c)
	}
}

// verdictOn evaluates f's body with its error parameter errVar holding the
// context sentinel named sentinel.
func (r *Result) verdictOn(f *Func, errVar *types.Var, result int, sentinel string) Verdict {
	ev := &classEval{info: r.info, err: errVar, sentinel: sentinel, result: result, n: f.Sig.Results().Len()}
	_, seen := ev.stmts(f.Body.List)
	switch {
	case ev.abort || seen == 0 || seen&seenUnknown != 0:
		return VerdictUnknown
	case seen == seenTrue:
		return VerdictTrue
	case seen == seenFalse:
		return VerdictFalse
	}
	return VerdictUnknown
}

// The returns a classifier's paths reach, as a set.
const (
	seenTrue = 1 << iota
	seenFalse
	seenUnknown
)

type classEval struct {
	info     *types.Info
	err      *types.Var
	sentinel string
	result   int
	n        int
	abort    bool // the body does something the evaluation does not follow
}

// stmts evaluates list, returning whether every path through it ends (in
// a return or a panic) and the set of verdicts its returns give.
func (ev *classEval) stmts(list []ast.Stmt) (ends bool, seen int) {
	for _, s := range list {
		if ev.abort {
			return true, 0
		}
		e, v := ev.stmt(s)
		seen |= v
		if e {
			return true, seen
		}
	}
	return false, seen
}

func (ev *classEval) stmt(s ast.Stmt) (ends bool, seen int) {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		if len(s.Results) != ev.n {
			ev.abort = true
			return true, 0
		}
		switch ev.cond(s.Results[ev.result]) {
		case VerdictTrue:
			return true, seenTrue
		case VerdictFalse:
			return true, seenFalse
		}
		return true, seenUnknown
	case *ast.BlockStmt:
		return ev.stmts(s.List)
	case *ast.IfStmt:
		if s.Init != nil {
			if ev.assignsErr(s.Init) {
				ev.abort = true
				return true, 0
			}
		}
		var elseList []ast.Stmt
		if s.Else != nil {
			elseList = []ast.Stmt{s.Else}
		}
		switch ev.cond(s.Cond) {
		case VerdictTrue:
			return ev.stmts(s.Body.List)
		case VerdictFalse:
			return ev.stmts(elseList)
		}
		e1, v1 := ev.stmts(s.Body.List)
		e2, v2 := ev.stmts(elseList)
		return e1 && e2, v1 | v2
	case *ast.SwitchStmt:
		if s.Init != nil && ev.assignsErr(s.Init) {
			ev.abort = true
			return true, 0
		}
		return ev.switchStmt(s)
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" && ev.info.Uses[id] == types.Universe.Lookup("panic") {
				return true, 0
			}
		}
		return false, 0
	case *ast.AssignStmt, *ast.DeclStmt, *ast.IncDecStmt, *ast.EmptyStmt:
		if ev.assignsErr(s) {
			ev.abort = true
			return true, 0
		}
		return false, 0
	}
	// Loops, selects, labels, go and defer: followed only when no return
	// and no assignment of the error is inside.
	if flow.Mentions(s, func(n ast.Node) bool {
		_, ret := n.(*ast.ReturnStmt)
		return ret
	}) || ev.assignsErr(s) {
		ev.abort = true
		return true, 0
	}
	return false, 0
}

// switchStmt evaluates a tagless switch (switch { case cond: }) or a
// switch on the error (switch err { case context.Canceled: }).
func (ev *classEval) switchStmt(s *ast.SwitchStmt) (ends bool, seen int) {
	if s.Tag != nil && !ev.isErr(s.Tag) {
		ev.abort = true
		return true, 0
	}
	var def *ast.CaseClause
	allEnd := true
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
			continue
		}
		v := VerdictFalse
		for _, e := range cc.List {
			var ve Verdict
			if s.Tag != nil {
				ve = ev.equalsErr(e)
			} else {
				ve = ev.cond(e)
			}
			v = or(v, ve)
		}
		if v == VerdictFalse {
			continue
		}
		if hasFallthrough(cc) {
			ev.abort = true
			return true, 0
		}
		e, sv := ev.stmts(cc.Body)
		seen |= sv
		allEnd = allEnd && e
		if v == VerdictTrue {
			return allEnd, seen
		}
	}
	if def != nil {
		e, sv := ev.stmts(def.Body)
		return allEnd && e, seen | sv
	}
	return false, seen
}

func hasFallthrough(cc *ast.CaseClause) bool {
	if len(cc.Body) == 0 {
		return false
	}
	br, ok := cc.Body[len(cc.Body)-1].(*ast.BranchStmt)
	return ok && br.Tok == token.FALLTHROUGH
}

// assignsErr reports whether n assigns the error parameter (or takes its
// address).
func (ev *classEval) assignsErr(n ast.Node) bool {
	return flow.Mentions(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.AssignStmt:
			for _, l := range m.Lhs {
				if ev.isErr(l) {
					return true
				}
			}
		case *ast.UnaryExpr:
			return m.Op == token.AND && ev.isErr(m.X)
		}
		return false
	})
}

func (ev *classEval) isErr(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && ev.info.ObjectOf(id) == ev.err
}

// cond evaluates the boolean expression e with the error parameter
// holding the sentinel.
func (ev *classEval) cond(e ast.Expr) Verdict {
	e = ast.Unparen(e)
	if tv, ok := ev.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		if constant.BoolVal(tv.Value) {
			return VerdictTrue
		}
		return VerdictFalse
	}
	switch e := e.(type) {
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return not(ev.cond(e.X))
		}
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND:
			return not(or(not(ev.cond(e.X)), not(ev.cond(e.Y))))
		case token.LOR:
			return or(ev.cond(e.X), ev.cond(e.Y))
		case token.EQL, token.NEQ:
			var v Verdict
			switch {
			case ev.isErr(e.X):
				v = ev.equalsErr(e.Y)
			case ev.isErr(e.Y):
				v = ev.equalsErr(e.X)
			default:
				return VerdictUnknown
			}
			if e.Op == token.NEQ {
				v = not(v)
			}
			return v
		}
	case *ast.CallExpr:
		fn := analysisutil.Callee(ev.info, e)
		switch {
		case analysisutil.IsFunc(fn, "errors", "Is") && len(e.Args) == 2 && ev.isErr(e.Args[0]):
			return ev.equalsErr(e.Args[1])
		case analysisutil.IsFunc(fn, "errors", "As") && len(e.Args) == 2 && ev.isErr(e.Args[0]):
			return ev.asTarget(e.Args[1])
		}
	}
	return VerdictUnknown
}

// equalsErr says whether the sentinel the error holds is x.
func (ev *classEval) equalsErr(x ast.Expr) Verdict {
	if isNil(ev.info, ast.Unparen(x)) {
		return VerdictFalse
	}
	switch ContextSentinel(ev.info, x) {
	case ev.sentinel:
		return VerdictTrue
	case "":
	default:
		return VerdictFalse // the other context sentinel
	}
	var obj types.Object
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		obj = ev.info.ObjectOf(x)
	case *ast.SelectorExpr:
		obj = ev.info.ObjectOf(x.Sel)
	}
	if v, ok := obj.(*types.Var); ok && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		return VerdictFalse // another package-level sentinel: a context's error is not it
	}
	return VerdictUnknown
}

// asTarget says whether errors.As finds a target of the type &x points to
// in the sentinel: an interface whose methods the sentinel has (Error; and
// Timeout and Temporary for DeadlineExceeded, a net.Error).
func (ev *classEval) asTarget(x ast.Expr) Verdict {
	t := ev.info.TypeOf(x)
	p, ok := t.(*types.Pointer)
	if !ok {
		return VerdictUnknown
	}
	iface, ok := p.Elem().Underlying().(*types.Interface)
	if !ok {
		return VerdictFalse // a concrete type: the sentinels' types are unexported
	}
	for i := range iface.NumMethods() {
		switch iface.Method(i).Name() {
		case "Error":
		case "Timeout", "Temporary":
			if ev.sentinel != "DeadlineExceeded" {
				return VerdictFalse
			}
		default:
			return VerdictFalse
		}
	}
	return VerdictTrue
}

func not(v Verdict) Verdict {
	switch v {
	case VerdictTrue:
		return VerdictFalse
	case VerdictFalse:
		return VerdictTrue
	}
	return VerdictUnknown
}

func or(x, y Verdict) Verdict {
	switch {
	case x == VerdictTrue || y == VerdictTrue:
		return VerdictTrue
	case x == VerdictFalse && y == VerdictFalse:
		return VerdictFalse
	}
	return VerdictUnknown
}
