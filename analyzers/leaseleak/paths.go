package leaseleak

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/cfg"
)

// walker searches the paths from an acquisition to the function's exits.
type walker struct {
	info  *types.Info
	start *cfg.Block
	index int      // of the acquisition in start.Nodes
	acq   ast.Node // the acquiring statement
	// disposes reports whether a node releases or hands off the lease.
	disposes func(ast.Node) bool
	// assignsErr reports whether a node overwrites the acquisition's error.
	assignsErr func(ast.Node) bool
	// failed reports whether taking the truth branch of cond means the
	// acquisition failed (nothing to release).
	failed func(cond ast.Expr, truth bool) bool
	// released reports whether taking the truth branch of cond releases
	// the lease (rows.Next() == false).
	released func(cond ast.Expr, truth bool) bool
	// tagCases are the case expressions of tag switches, which are not
	// conditions.
	tagCases map[ast.Expr]bool
}

// outcome is what the search found.
type outcome struct {
	leaks  []*ast.ReturnStmt // returns reached without release, in order found
	loop   bool              // the acquisition is reached again without release
	failed map[*ast.ReturnStmt]bool
}

type visit struct {
	b       *cfg.Block
	errLive bool
	failed  bool
}

func (w *walker) search() *outcome {
	out := &outcome{failed: make(map[*ast.ReturnStmt]bool)}
	seen := make(map[visit]bool)
	seenLeak := make(map[*ast.ReturnStmt]bool)
	type item struct {
		visit
		from int
	}
	stack := []item{{visit{w.start, true, false}, w.index + 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		errLive, failed := it.errLive, it.failed
		stopped := false
		for _, n := range it.b.Nodes[it.from:] {
			if n == w.acq {
				if !failed {
					out.loop = true
				}
				stopped = true
				break
			}
			if ret, ok := n.(*ast.ReturnStmt); ok && failed {
				out.failed[ret] = true
				stopped = true
				break
			}
			if !failed && w.disposes(n) {
				stopped = true
				break
			}
			if ret, ok := n.(*ast.ReturnStmt); ok {
				if !seenLeak[ret] {
					seenLeak[ret] = true
					out.leaks = append(out.leaks, ret)
				}
				stopped = true
				break
			}
			if errLive && w.assignsErr(n) {
				errLive = false
			}
		}
		if stopped {
			continue
		}
		var cond ast.Expr
		if len(it.b.Succs) == 2 && len(it.b.Nodes) > 0 {
			if e, ok := it.b.Nodes[len(it.b.Nodes)-1].(ast.Expr); ok && !w.tagCases[e] && isBool(w.info, e) {
				cond = e
			}
		}
		for i, s := range it.b.Succs {
			v := visit{s, errLive, failed}
			if cond != nil && !failed {
				truth := i == 0
				if errLive && w.failed(cond, truth) {
					v.failed = true
				} else if w.released(cond, truth) {
					continue
				}
			}
			if !seen[v] {
				seen[v] = true
				stack = append(stack, item{v, 0})
			}
		}
	}
	slices.SortFunc(out.leaks, func(a, b *ast.ReturnStmt) int { return int(a.Pos() - b.Pos()) })
	return out
}

func isBool(info *types.Info, e ast.Expr) bool {
	t := info.TypeOf(e)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// impliesFailed reports whether cond having value truth implies that the
// acquisition failed: its error is not nil, or the lease is nil.
func impliesFailed(info *types.Info, cond ast.Expr, truth bool, errObj types.Object, objs map[types.Object]bool) bool {
	is := func(e ast.Expr, want func(types.Object) bool) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && want(info.Uses[id])
	}
	isErr := func(o types.Object) bool { return o != nil && o == errObj }
	isLease := func(o types.Object) bool { return o != nil && objs[o] }
	isNil := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		_, isNil := info.Uses[id].(*types.Nil)
		return isNil
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			return impliesFailed(info, c.X, !truth, errObj, objs)
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			if truth {
				return impliesFailed(info, c.X, true, errObj, objs) || impliesFailed(info, c.Y, true, errObj, objs)
			}
			return impliesFailed(info, c.X, false, errObj, objs) && impliesFailed(info, c.Y, false, errObj, objs)
		case token.LOR:
			if truth {
				return impliesFailed(info, c.X, true, errObj, objs) && impliesFailed(info, c.Y, true, errObj, objs)
			}
			return impliesFailed(info, c.X, false, errObj, objs) || impliesFailed(info, c.Y, false, errObj, objs)
		case token.NEQ, token.EQL:
			x, y := c.X, c.Y
			if isNil(x) {
				x, y = y, x
			}
			if !isNil(y) {
				return false
			}
			// err != nil (true) or err == nil (false): failed.
			if is(x, isErr) {
				return (c.Op == token.NEQ) == truth
			}
			// v == nil (true) or v != nil (false): nothing to release.
			if is(x, isLease) {
				return (c.Op == token.EQL) == truth
			}
		}
	case *ast.CallExpr:
		// errors.Is(err, X) / errors.As(err, &t) true: err != nil.
		if truth && len(c.Args) > 0 && is(c.Args[0], isErr) {
			if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
				if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "errors" {
					return fn.Name() == "Is" || fn.Name() == "As"
				}
			}
		}
	}
	return false
}
