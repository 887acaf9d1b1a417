package leaseleak

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/cfg"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// walker searches the paths from an acquisition to the function's exits.
type walker struct {
	info  *types.Info
	start *cfg.Block
	index int      // of the acquisition in start.Nodes
	acq   ast.Node // the acquiring statement
	// disposes reports whether a node releases or hands off the lease.
	disposes func(ast.Node) bool
	// enters, when set, reports whether taking the branch into block b
	// releases the lease (the case of a select whose receive completed).
	enters func(b *cfg.Block) bool
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
	// consistent maps the source of conditions that held (true or false)
	// for the acquisition to happen, and whose variables never change, to
	// the value they had: a later test of the same condition goes the same
	// way (if b == 10 { mu.Lock() } ... if b == 10 { mu.Unlock() }).
	consistent map[string]bool
	// hit, when set, marks nodes the search looks for (a second
	// Unlock); reaching one is recorded and ends the path.
	hit func(ast.Node) bool
	// quietReturns makes returns end a path without being recorded.
	quietReturns bool
	// infeasible, when set, reports whether taking the truth branch of
	// cond cannot happen (if err != nil after a call that never fails).
	infeasible func(cond ast.Expr, truth bool) bool
	// stable, when set, numbers the conditions whose variables never change
	// in the function (at most maxStable of them; -1 for others): once a path
	// has taken a branch on one, a later test of it goes the same way
	// (if recovering { mu.Lock() } ... if recovering { mu.Unlock() }).
	stable func(ast.Expr) int
}

// outcome is what the search found.
type outcome struct {
	leaks  []*ast.ReturnStmt // returns reached without release, in order found
	hits   []ast.Node        // nodes for which hit was true
	loop   bool              // the acquisition is reached again without release
	failed map[*ast.ReturnStmt]bool
}

type visit struct {
	b       *cfg.Block
	errLive bool
	failed  bool
	// known and truth record, bit i for stable condition i, whether the
	// path has decided it and which way.
	known, truth uint16
}

func (w *walker) search() *outcome {
	out := &outcome{failed: make(map[*ast.ReturnStmt]bool)}
	seen := make(map[visit]bool)
	seenLeak := make(map[*ast.ReturnStmt]bool)
	type item struct {
		visit
		from int
	}
	stack := []item{{visit{w.start, true, false, 0, 0}, w.index + 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		errLive, failed := it.errLive, it.failed
		stopped := false
		if it.from == 0 && !failed && w.enters != nil && w.enters(it.b) {
			continue
		}
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
			if !failed && w.hit != nil && w.hit(n) {
				if !slices.Contains(out.hits, n) {
					out.hits = append(out.hits, n)
				}
				stopped = true
				break
			}
			if !failed && w.disposes(n) {
				stopped = true
				break
			}
			if _, ok := n.(*ast.ReturnStmt); ok && w.quietReturns {
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
			v := visit{s, errLive, failed, it.known, it.truth}
			if cond != nil {
				if want, ok := w.consistent[types.ExprString(cond)]; ok && want != (i == 0) {
					continue
				}
				if w.stable != nil {
					base, neg := stripNot(cond)
					if k := w.stable(base); k >= 0 {
						bit := uint16(1) << k
						val := (i == 0) != neg // the value of base on this branch
						if v.known&bit != 0 && (v.truth&bit != 0) != val {
							continue // decided the other way earlier on this path
						}
						v.known |= bit
						if val {
							v.truth |= bit
						} else {
							v.truth &^= bit
						}
					}
				}
			}
			if cond != nil && w.infeasible != nil && w.infeasible(cond, i == 0) {
				continue
			}
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

func isBool(info *types.Info, e ast.Expr) bool { return isBoolType(info.TypeOf(e)) }

// impliesFailed reports whether cond having value truth implies that the
// acquisition failed: its error is not nil, or the lease is nil.
// okFailed reports whether cond, being truth, says the comma-ok acquisition
// whose bool is ok failed: `!ok` true, `ok` false.
func okFailed(info *types.Info, cond ast.Expr, truth bool, ok types.Object) bool {
	if ok == nil {
		return false
	}
	switch c := ast.Unparen(cond).(type) {
	case *ast.Ident:
		return info.Uses[c] == ok && !truth
	case *ast.UnaryExpr:
		return c.Op == token.NOT && okFailed(info, c.X, !truth, ok)
	case *ast.BinaryExpr:
		switch c.Op {
		case token.LAND:
			if truth {
				return okFailed(info, c.X, true, ok) || okFailed(info, c.Y, true, ok)
			}
			return okFailed(info, c.X, false, ok) && okFailed(info, c.Y, false, ok)
		case token.LOR:
			if truth {
				return okFailed(info, c.X, true, ok) && okFailed(info, c.Y, true, ok)
			}
			return okFailed(info, c.X, false, ok) || okFailed(info, c.Y, false, ok)
		}
	}
	return false
}

// okResult returns the variable given the last result of call, a bool, when
// the acquisition has no error result and a false there means no lease: the
// comma-ok convention, checked against the callee's body when it is in this
// package (every return of a false bool returns nil for the lease), and
// taken on trust for callees elsewhere.
func okResult(info *types.Info, pkg *types.Package, files []*ast.File, call *ast.CallExpr, lhs []ast.Expr, leaseIdx int) types.Object {
	tup, ok := info.TypeOf(call).(*types.Tuple)
	if !ok || tup.Len() < 2 || len(lhs) != tup.Len() {
		return nil
	}
	last := tup.Len() - 1
	if b, ok := tup.At(last).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.Bool || leaseIdx == last {
		return nil
	}
	id, ok := ast.Unparen(lhs[last]).(*ast.Ident)
	if !ok || id.Name == "_" {
		return nil
	}
	if fn := analysisutil.Callee(info, call); fn != nil && fn.Pkg() == pkg {
		if decl := funcDecl(info, files, fn); decl != nil && !nilWhenFalse(info, decl, leaseIdx, last) {
			return nil
		}
	}
	return info.ObjectOf(id)
}

// funcDecl returns the declaration of fn among files.
func funcDecl(info *types.Info, files []*ast.File, fn *types.Func) *ast.FuncDecl {
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && info.Defs[fd.Name] == fn.Origin() {
				return fd
			}
		}
	}
	return nil
}

// nilWhenFalse reports whether every return of decl that gives a false
// bool at okIdx gives nil at leaseIdx.
func nilWhenFalse(info *types.Info, decl *ast.FuncDecl, leaseIdx, okIdx int) bool {
	good := true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) <= okIdx || len(n.Results) <= leaseIdx {
				return true
			}
			if id, ok := ast.Unparen(n.Results[okIdx]).(*ast.Ident); ok {
				if c, ok := info.Uses[id].(*types.Const); ok && c.Name() == "false" {
					if tv, ok := info.Types[n.Results[leaseIdx]]; !ok || !tv.IsNil() {
						good = false
					}
				}
			}
		}
		return good
	})
	return good
}

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
				// err == ErrSentinel (true), err != ErrSentinel
				// (false): err is not nil.
				if is(y, isErr) {
					x, y = y, x
				}
				if is(x, isErr) && isSentinel(info, y) {
					return (c.Op == token.EQL) == truth
				}
				return false
			}
			// err != nil (true) or err == nil (false): failed.
			if is(x, isErr) {
				return (c.Op == token.NEQ) == truth
			}
			// v == nil (true) or v != nil (false): nothing to release;
			// so too for v.Body == nil.
			if is(x, isLease) {
				return (c.Op == token.EQL) == truth
			}
			if sel, ok := ast.Unparen(x).(*ast.SelectorExpr); ok && sel.Sel.Name == "Body" && is(sel.X, isLease) {
				return (c.Op == token.EQL) == truth
			}
		}
	case *ast.CallExpr:
		// A predicate of the error being true (errors.Is(err, X),
		// os.IsNotExist(err), isTimeout(err)): err != nil.
		if truth && isBool(info, c) {
			for _, a := range c.Args {
				if is(a, isErr) {
					return true
				}
			}
		}
	}
	return false
}

// stripNot returns cond without its leading negations, and whether there
// was an odd number of them.
func stripNot(cond ast.Expr) (ast.Expr, bool) {
	neg := false
	for {
		u, ok := ast.Unparen(cond).(*ast.UnaryExpr)
		if !ok || u.Op != token.NOT {
			return ast.Unparen(cond), neg
		}
		cond, neg = u.X, !neg
	}
}

// maxStable bounds the stable conditions a search tracks: each multiplies
// the states of a block by up to three (undecided, true, false).
const maxStable = 4

// stableConds returns the numbering of the function's stable conditions
// for walker.stable, computed on first use: conditions that read only
// variables the function never assigns, by source, up to maxStable of
// them.
func (f *function) stableConds() func(ast.Expr) int {
	index := map[string]int{}
	judged := map[string]bool{}
	return func(cond ast.Expr) int {
		// The same text over the same variables: a shadowing err in an
		// inner scope is another condition.
		key := types.ExprString(cond)
		ast.Inspect(cond, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if obj := f.info().Uses[id]; obj != nil {
					key += fmt.Sprintf("|%d", obj.Pos())
				}
			}
			return true
		})
		if i, ok := index[key]; ok {
			return i
		}
		if judged[key] {
			return -1
		}
		judged[key] = true
		if len(index) >= maxStable || !f.stable(cond) {
			return -1
		}
		index[key] = len(index)
		return index[key]
	}
}

// consistentConds returns the conditions of the if statements around the
// node at c (up to the function) that must have held for it to run, when
// they read only variables the function never assigns after declaring
// them, keyed by source.
func (f *function) consistentConds(node ast.Node) map[string]bool {
	c, ok := f.cur.FindNode(node)
	if !ok {
		return nil
	}
	out := make(map[string]bool)
	child := c.Node()
	for p := c.Parent(); p.Node() != f.cur.Node(); p = p.Parent() {
		if ifs, ok := p.Node().(*ast.IfStmt); ok && f.stable(ifs.Cond) {
			switch child {
			case ifs.Body:
				out[types.ExprString(ifs.Cond)] = true
			case ifs.Else:
				out[types.ExprString(ifs.Cond)] = false
			}
		}
		if _, ok := p.Node().(*ast.FuncLit); ok {
			break
		}
		child = p.Node()
	}
	return out
}

// stable reports whether cond calls nothing and reads only local variables
// or parameters that the function never assigns after their declaration,
// and fields of them that it never assigns (a call in between could; the
// analysis assumes it does not, the quiet side).
func (f *function) stable(cond ast.Expr) bool {
	info := f.info()
	ok := true
	var vars, fields []types.Object
	ast.Inspect(cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr, *ast.UnaryExpr:
			if u, isU := n.(*ast.UnaryExpr); isU && u.Op == token.NOT {
				return true
			}
			ok = false
		case *ast.SelectorExpr:
			// A field of a stable variable that the function never
			// assigns (sub.client != nil): stable too.
			sel, isSel := info.Selections[n]
			if !isSel || sel.Kind() != types.FieldVal {
				ok = false
				return false
			}
			fields = append(fields, sel.Obj())
			return true
		case *ast.Ident:
			if v, isVar := info.Uses[n].(*types.Var); isVar {
				vars = append(vars, v)
			}
		}
		return ok
	})
	if !ok || len(vars) == 0 {
		return false
	}
	for c := range f.cur.Preorder((*ast.AssignStmt)(nil), (*ast.IncDecStmt)(nil), (*ast.UnaryExpr)(nil), (*ast.RangeStmt)(nil)) {
		var lhs []ast.Expr
		switch n := c.Node().(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				// := assigns the names it does not declare.
				if id, isID := e.(*ast.Ident); isID && (n.Tok != token.DEFINE || info.Defs[id] == nil) {
					lhs = append(lhs, id)
				}
				if sel, isSel := ast.Unparen(e).(*ast.SelectorExpr); isSel {
					lhs = append(lhs, sel)
				}
			}
		case *ast.IncDecStmt:
			lhs = []ast.Expr{n.X}
		case *ast.UnaryExpr:
			if n.Op != token.AND {
				continue
			}
			lhs = []ast.Expr{n.X}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				continue
			}
			lhs = []ast.Expr{n.Key, n.Value}
		}
		for _, e := range lhs {
			if id, isID := e.(*ast.Ident); isID && slices.Contains(vars, info.Uses[id]) {
				return false
			}
			if sel, isSel := ast.Unparen(e).(*ast.SelectorExpr); isSel && slices.Contains(fields, info.ObjectOf(sel.Sel)) {
				return false
			}
		}
	}
	return true
}

// isSentinel reports whether e names a package-level error variable
// (io.EOF, sql.ErrNoRows), which is never nil.
func isSentinel(info *types.Info, e ast.Expr) bool {
	v := analysisutil.PackageVar(info, e)
	return v != nil && analysisutil.IsError(v.Type())
}

// infeasibleConds maps the error tests of the function that cannot hold
// to the branch that cannot be taken: `if err != nil` (true) or `if err ==
// nil` (false) right after err is assigned the error of a call that never
// fails (ctxflow's NeverFails: url.Parse of a constant URL, a constructor
// whose options cannot fail). Computed on first use.
func (f *function) infeasibleConds() func(ast.Expr, bool) bool {
	if f.infeasible == nil {
		f.infeasible = make(map[ast.Expr]bool)
		info := f.info()
		test := func(st ast.Stmt, cond ast.Expr) {
			as, ok := st.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return
			}
			call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return
			}
			b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
			if !ok || (b.Op != token.NEQ && b.Op != token.EQL) || !isNil(info, b.Y) {
				return
			}
			id, ok := ast.Unparen(b.X).(*ast.Ident)
			if !ok || !analysisutil.IsError(info.TypeOf(id)) {
				return
			}
			assigned := false
			for _, l := range as.Lhs {
				if lid, ok := l.(*ast.Ident); ok && info.ObjectOf(lid) == info.ObjectOf(id) {
					assigned = true
				}
			}
			if assigned && f.s.flow.NeverFails(call) {
				f.infeasible[cond] = b.Op == token.NEQ
			}
		}
		ast.Inspect(f.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.IfStmt:
				if n.Init != nil {
					test(n.Init, n.Cond)
				}
			}
			list := analysisutil.StmtList(n)
			for i := 1; i < len(list); i++ {
				if ifs, ok := list[i].(*ast.IfStmt); ok && ifs.Init == nil {
					test(list[i-1], ifs.Cond)
				}
			}
			return true
		})
	}
	return func(cond ast.Expr, truth bool) bool {
		want, ok := f.infeasible[cond]
		return ok && want == truth
	}
}
