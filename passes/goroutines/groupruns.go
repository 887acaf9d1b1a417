package goroutines

import (
	"go/ast"
	"go/types"
	"sync"

	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// GroupRun is a function literal that a group runs as a goroutine,
// (*errgroup.Group).Go or TryGo or the runtime's (*scope.Scope).Go: what it
// returns goes to the group's Wait.
type GroupRun struct {
	Call *ast.CallExpr
	// Group is the group's variable when it is a local variable of the
	// function that starts the literal, else nil (a field, a parameter:
	// its Wait is elsewhere).
	Group types.Object
	// Unread is true when Group's Wait results are never used: every
	// Wait of it in that function is a statement, deferred, run by a go
	// statement or assigned to _, or there is none. The literal's error
	// then reaches no one.
	Unread bool
}

// groupRuns computes GroupRuns once per package.
type groupRuns struct {
	once sync.Once
	runs map[*ast.FuncLit]*GroupRun
}

// GroupRuns returns the package's function literals run by a group, with
// what becomes of their errors. It does not compute the rest of the
// result.
func (l *Lazy) GroupRuns() map[*ast.FuncLit]*GroupRun {
	l.groups.once.Do(func() { l.groups.runs = findGroupRuns(l.info, l.ins) })
	return l.groups.runs
}

// groupRunner reports whether fn runs a function argument on a group whose
// Wait returns the goroutines' first error: the group starts of isGroupGo
// but sync.WaitGroup.Go, whose functions return nothing.
func groupRunner(fn *types.Func) bool {
	return isGroupGo(fn) && !analysisutil.IsMethod(fn, "sync", "WaitGroup", "Go")
}

func findGroupRuns(info *types.Info, ins *inspector.Inspector) map[*ast.FuncLit]*GroupRun {
	out := make(map[*ast.FuncLit]*GroupRun)
	if info == nil || ins == nil {
		return out
	}
	// Wait calls by group variable, and whether one's result is used.
	type waits struct{ any, read bool }
	byGroup := map[types.Object]*waits{}
	var runs []*GroupRun
	var lits []*ast.FuncLit
	for cur := range ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		fn := analysisutil.Callee(info, call)
		if fn == nil {
			continue
		}
		switch {
		case groupRunner(fn) && len(call.Args) > 0:
			lit, ok := ast.Unparen(call.Args[len(call.Args)-1]).(*ast.FuncLit)
			if !ok {
				continue
			}
			r := &GroupRun{Call: call}
			if obj := localVar(info, sel.X); obj != nil {
				r.Group = obj
			}
			runs = append(runs, r)
			lits = append(lits, lit)
		case fn.Name() == "Wait":
			obj := localVar(info, sel.X)
			if obj == nil {
				continue
			}
			w := byGroup[obj]
			if w == nil {
				w = &waits{}
				byGroup[obj] = w
			}
			w.any = true
			if resultUsed(cur) {
				w.read = true
			}
		}
	}
	for i, r := range runs {
		if r.Group != nil {
			w := byGroup[r.Group]
			r.Unread = w == nil || !w.read
		}
		out[lits[i]] = r
	}
	return out
}

// localVar returns the local variable e names (g, &g, *g), or nil.
func localVar(info *types.Info, e ast.Expr) types.Object {
	if _, sel := ast.Unparen(e).(*ast.SelectorExpr); sel {
		return nil // a field, or a package's variable
	}
	v, ok := rootObj(info, e).(*types.Var)
	if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	return v
}

// resultUsed reports whether the results of the call at cur are used: it
// is not an expression statement, a deferred or go call, or assigned to _
// only.
func resultUsed(cur inspector.Cursor) bool {
	switch p := cur.Parent().Node().(type) {
	case *ast.ExprStmt, *ast.DeferStmt, *ast.GoStmt:
		return false
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if id, ok := l.(*ast.Ident); !ok || id.Name != "_" {
				return true
			}
		}
		return false
	}
	return true
}
