package orphansend

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkUnguarded reports, in a function with a context in reach, a bare
// send on a channel field when the same function gives up another send
// when that context is done (`select { case w.frames <- msg: case
// <-ctx.Done(): return }`): the function itself expects the receiver to
// stop receiving once the context ends, and this send, with no way out,
// then blocks its goroutine forever (improbable-eng/grpc-web#253's
// readLoop, which reports a read error on an unbuffered closeNotify that the
// finished handler no longer selects on). Channels the package makes with a
// buffer are not judged: the buffer may hold the send; nor locals, which
// the orphan walk judges with their make in sight.
//
// It returns the sends it reported.
func checkUnguarded(pass *analysis.Pass, ins *inspector.Inspector, flow *ctxflow.Result, rep *analysisutil.Reporter) map[*ast.SendStmt]bool {
	reported := map[*ast.SendStmt]bool{}
	type sends struct {
		guard    *ast.SendStmt // a send given up when a context of f is done
		guardCtx ast.Expr
		bare     []*ast.SendStmt
	}
	byFunc := map[*ctxflow.Func]*sends{}
	var order []*ctxflow.Func
	comms := map[ast.Stmt]bool{}
	// A select comes before the sends of its cases in the walk.
	for c := range ins.Root().Preorder((*ast.SelectStmt)(nil), (*ast.SendStmt)(nil)) {
		f := flow.Enclosing(c)
		if f == nil || f.Body == nil || !f.HasContext() {
			continue
		}
		fs := byFunc[f]
		if fs == nil {
			fs = &sends{}
			byFunc[f] = fs
			order = append(order, f)
		}
		switch n := c.Node().(type) {
		case *ast.SelectStmt:
			var send *ast.SendStmt
			var ctx ast.Expr
			for _, cl := range n.Body.List {
				cc := cl.(*ast.CommClause)
				if cc.Comm == nil {
					continue
				}
				comms[cc.Comm] = true
				if s, ok := cc.Comm.(*ast.SendStmt); ok {
					send = s
				} else if x := flow.DoneContext(cc.Comm); x != nil && ownContext(f, x) {
					ctx = x
				}
			}
			if send != nil && ctx != nil && fs.guard == nil {
				fs.guard, fs.guardCtx = send, ctx
			}
		case *ast.SendStmt:
			if !comms[n] && fieldOf(pass.TypesInfo, n.Chan) != nil {
				fs.bare = append(fs.bare, n)
			}
		}
	}
	var buffered map[*types.Var]bool
	for _, f := range order {
		guard, guardCtx, bare := byFunc[f].guard, byFunc[f].guardCtx, byFunc[f].bare
		if guard == nil || len(bare) == 0 {
			continue
		}
		if buffered == nil {
			buffered = bufferedFields(pass, ins)
		}
		ctx := types.ExprString(guardCtx)
		for _, s := range bare {
			if buffered[fieldOf(pass.TypesInfo, s.Chan)] {
				continue
			}
			ch := types.ExprString(s.Chan)
			reported[s] = true
			text := fmt.Sprintf("select {\ncase %s:\ncase <-%s.Done():\n}", nodeString(pass.Fset, s), ctx)
			rep.Report(analysis.Diagnostic{
				Pos: s.Pos(), End: s.End(),
				Message: fmt.Sprintf("this send on %s waits for a receiver with no way out, though %s gives up its send on %s when %s is done: once the receiver has stopped receiving (it returned on that end, or finished), the goroutine blocks here forever; select on %s.Done() beside this send too",
					ch, f.Name(), types.ExprString(guard.Chan), ctx, ctx),
				Related: []analysis.RelatedInformation{{Pos: guard.Pos(), End: guard.End(), Message: "this send is given up when " + ctx + " is done"}},
				SuggestedFixes: []analysis.SuggestedFix{{
					Message:   "Give up the send once " + ctx + " is done",
					TextEdits: []analysis.TextEdit{{Pos: s.Pos(), End: s.End(), NewText: []byte(text)}},
				}},
			})
		}
	}
	return reported
}

// ownContext reports whether x names a context of f (a parameter, a
// captured one, a request's).
func ownContext(f *ctxflow.Func, x ast.Expr) bool {
	want := types.ExprString(x)
	for _, c := range f.Contexts {
		if c.Expr == want {
			return true
		}
	}
	return false
}

// fieldOf returns the struct field a channel expression selects (w.ch,
// s.conn.out), or nil.
func fieldOf(info *types.Info, e ast.Expr) *types.Var {
	if _, sel := ast.Unparen(e).(*ast.SelectorExpr); !sel {
		return nil
	}
	if v := analysisutil.VarObject(info, e); v != nil && v.IsField() {
		return v
	}
	return nil
}

// bufferedFields returns the channel fields the package makes with a
// buffer somewhere, or with a size that is not the constant 0: in an
// assignment (x.ch = make(chan T, n)) or a composite literal (T{ch:
// make(chan T, n)}).
func bufferedFields(pass *analysis.Pass, ins *inspector.Inspector) map[*types.Var]bool {
	info := pass.TypesInfo
	out := map[*types.Var]bool{}
	sized := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || !analysisutil.IsBuiltin(info, call, "make") || len(call.Args) < 2 {
			return false
		}
		if tv, ok := info.Types[call.Args[1]]; ok && tv.Value != nil {
			if n, ok := constant.Int64Val(constant.ToInt(tv.Value)); ok && n == 0 {
				return false
			}
		}
		return true
	}
	for c := range ins.Root().Preorder((*ast.AssignStmt)(nil), (*ast.KeyValueExpr)(nil)) {
		switch n := c.Node().(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if v := fieldOf(info, l); v != nil && sized(n.Rhs[i]) {
						out[v] = true
					}
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() && sized(n.Value) {
					out[v] = true
				}
			}
		}
	}
	return out
}
