package ownership

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// A summary holds what the fixed point of run needs of one function,
// collected by at most two walks of its body, so that the rounds of the
// fixed point only re-classify uses instead of re-walking every body.
type summary struct {
	obj  *types.Func
	decl *ast.FuncDecl
	// params are the parameters that may hold a lease, with their uses.
	params []*paramUses
	// returns are the function's return statements and assigns the
	// assignments of a single call's results (x, err := f()), both outside
	// function literals; returns is empty when the function has no results.
	returns []*ast.ReturnStmt
	assigns []*ast.AssignStmt
}

// paramUses are the uses, in its function's body, of parameter index and
// of the local variables that alias it.
type paramUses struct {
	index int
	objs  map[types.Object]bool
	uses  [][]ast.Node // the path from the body to each identifier naming objs
}

// summarize returns the summary of fn, declared by decl, or nil when fn can
// neither consume a parameter nor return a lease.
func (r *Result) summarize(fn *types.Func, decl *ast.FuncDecl) *summary {
	sig := fn.Type().(*types.Signature)
	s := &summary{obj: fn, decl: decl}
	for i := range sig.Params().Len() {
		p := sig.Params().At(i)
		if p.Name() != "" && p.Name() != "_" && mayHoldLease(p.Type()) {
			s.params = append(s.params, &paramUses{index: i, objs: make(map[types.Object]bool)})
		}
	}
	wantReturns := sig.Results().Len() > 0
	if len(s.params) == 0 && !wantReturns {
		return nil
	}

	// First walk: direct assignments between variables (for aliases), and
	// the return statements and call assignments outside function literals.
	aliasOf := make(map[types.Object][]*types.Var)
	var stack []ast.Node
	lits := 0
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil {
			if _, ok := stack[len(stack)-1].(*ast.FuncLit); ok {
				lits--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		var lhs, rhs []ast.Expr
		switch n := n.(type) {
		case *ast.FuncLit:
			lits++
		case *ast.ReturnStmt:
			if lits == 0 && wantReturns {
				s.returns = append(s.returns, n)
			}
		case *ast.AssignStmt:
			lhs, rhs = n.Lhs, n.Rhs
			if lits == 0 && wantReturns && len(n.Rhs) == 1 {
				if _, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
					s.assigns = append(s.assigns, n)
				}
			}
		case *ast.ValueSpec:
			lhs, rhs = specNames(n), n.Values
		}
		if len(s.params) > 0 {
			r.aliasEdges(aliasOf, lhs, rhs, "")
		}
		return true
	})
	if len(s.returns) == 0 {
		s.assigns = nil
		if len(s.params) == 0 {
			return nil
		}
	}
	if len(s.params) == 0 {
		return s
	}

	// Aliases of each parameter: what its assignments reach.
	all := make(map[types.Object]bool)
	for _, p := range s.params {
		addAliases(p.objs, aliasOf, sig.Params().At(p.index))
		for o := range p.objs {
			all[o] = true
		}
	}

	// Second walk: the uses of the parameters and their aliases.
	stack = stack[:0]
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if id, ok := n.(*ast.Ident); ok {
			if o := r.info.Uses[id]; o != nil && all[o] {
				st := slices.Clone(stack)
				for _, p := range s.params {
					if p.objs[o] {
						p.uses = append(p.uses, st)
					}
				}
			}
		}
		return true
	})
	return s
}

// paramUse returns the strongest use the function makes of parameter p, as
// UseOf would over the function's body.
func (r *Result) paramUse(p *paramUses) Use {
	best := Borrow
	for _, st := range p.uses {
		if u := r.classify(st, generic, p.objs); u > best {
			best = u
			if best == HandOff {
				break
			}
		}
	}
	return best
}

// onlyReturned reports whether every use of p that is not a borrow puts it
// into a value the function returns: `return &reader{r: r}`,
// `return T{x}`, `return wrap(x)` is not (the callee decides).
func (r *Result) onlyReturned(p *paramUses) bool {
	some := false
	for _, st := range p.uses {
		if r.classify(st, generic, p.objs) == Borrow {
			continue
		}
		if !returnedIn(st) {
			return false
		}
		some = true
	}
	return some
}

// returnedIn reports whether the identifier ending stack is part of the
// value of a return statement, only through composite literals, their
// keys' values, & and parentheses.
func returnedIn(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ParenExpr, *ast.CompositeLit:
		case *ast.KeyValueExpr:
			if n.Key == stack[i+1] {
				return false
			}
		case *ast.UnaryExpr:
			if n.Op != token.AND {
				return false
			}
		case *ast.ReturnStmt:
			return true
		default:
			return false
		}
	}
	return false
}
