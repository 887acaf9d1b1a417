package swallowcancel

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// outcome is how a method records its failure in its receiver: the error
// field an accessor of the type returns, and the method of the type that
// sets it from its one error parameter, if there is one.
type outcome struct {
	field  *types.Var
	reader *types.Func // the accessor: func (q *Query) Err() error { return q.err }
	setter *types.Func // func (q *Query) setErr(err error) { ... q.err = err ... }
}

// checkUnrecorded reports a cancellation branch (a Done clause, or a test
// that holds once the context has ended) of a method without an error
// result that returns without recording an error in the receiver,
// when the method records its other failures there and an accessor of the
// type hands that field to whoever waits on the work:
//
//	func (q *Query) Execute(ctx context.Context) {
//		defer close(q.done)
//		for _, st := range q.plan {
//			select {
//			case <-ctx.Done():
//				return // q.Err() reports nil: the plan looks finished
//			default:
//			}
//			if err := st.Run(ctx); err != nil {
//				q.setErr(err)
//				return
//			}
//		}
//	}
//
// An iterator's Next that returns false when ctx has ended, leaving its
// error field unset, ends the iteration as if it were complete, too; so
// does the body of an iterator a method returns (`return func(yield
// func(T) bool) { ... }`): a literal of a method records in the method's
// receiver.
//
// first is the branch's first statement; x the context that ended.
func (s *state) checkUnrecorded(f *ctxflow.Func, first ast.Stmt, x ast.Expr, pos, end ast.Node) {
	// A literal of a method (the body of the iterator it returns, a
	// callback) records in the method's receiver like the method would.
	m, name := f, f.Name()
	for m != nil && m.Obj == nil {
		m = m.Parent
	}
	if m == nil || m.Sig.Recv() == nil || analysisutil.ErrorResult(f.Sig) >= 0 || s.quiet[f] || s.quiet[m] || s.inTeardown(f) {
		return
	}
	if m != f {
		name = "the function literal in " + m.Name()
	}
	recv := m.Sig.Recv()
	outs := s.outcomesOf(recv.Type())
	if len(outs) == 0 {
		return
	}
	g := s.graphs.Func(f.Node)
	if g == nil {
		return
	}
	start, ok := g.Locate(first)
	if !ok {
		return
	}
	for _, o := range outs {
		records := func(n ast.Node) bool { return s.recordsIn(n, recv, o) }
		// The method records failures there on another path, and no
		// deferred call does it on the way out.
		if !flow.Mentions(f.Body, records) || s.deferRecords(f.Body, records) {
			continue
		}
		if _, escapes := g.ExitAvoiding(start, func(n ast.Node) bool { return flow.Mentions(n, records) }); !escapes {
			continue
		}
		ctx := types.ExprString(x)
		var fixes []analysis.SuggestedFix
		record := fmt.Sprintf("%s.%s = %s.Err()", recv.Name(), o.field.Name(), ctx)
		if o.setter != nil {
			record = fmt.Sprintf("%s.%s(%s.Err())", recv.Name(), o.setter.Name(), ctx)
		}
		fixes = []analysis.SuggestedFix{{
			Message:   "Record the context's error",
			TextEdits: []analysis.TextEdit{{Pos: first.Pos(), End: first.Pos(), NewText: []byte(record + "\n")}},
		}}
		s.rep.Report(analysis.Diagnostic{
			Pos: pos.Pos(),
			End: end.End(),
			Message: fmt.Sprintf("when %s is done %s returns without recording an error in %s.%s, which %s returns: it reports nil, and the work looks finished although it was canceled",
				ctx, name, recv.Name(), o.field.Name(), o.reader.Name()),
			SuggestedFixes: fixes,
		})
		return
	}
}

// recordsIn reports whether n records an error in the receiver's outcome
// field: an assignment to recv.field, or a call recv.setter(...).
func (s *state) recordsIn(n ast.Node, recv *types.Var, o outcome) bool {
	switch n := n.(type) {
	case *ast.AssignStmt:
		for _, lhs := range n.Lhs {
			if s.recvField(lhs, recv) == o.field {
				return true
			}
		}
	case *ast.CallExpr:
		if o.setter == nil {
			return false
		}
		sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
		if !ok {
			return false
		}
		if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && s.info.Uses[id] == recv {
			fn, _ := s.info.Uses[sel.Sel].(*types.Func)
			return fn != nil && fn.Origin() == o.setter
		}
	}
	return false
}

// deferRecords reports whether body defers a call that records.
func (s *state) deferRecords(body *ast.BlockStmt, records func(ast.Node) bool) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if d, ok := n.(*ast.DeferStmt); ok {
			ast.Inspect(d, func(m ast.Node) bool {
				found = found || m != nil && records(m)
				return !found
			})
		}
		return !found
	})
	return found
}

// recvField returns the field f of e when e is recv.f, else nil.
func (s *state) recvField(e ast.Expr, recv *types.Var) *types.Var {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok || s.info.Uses[id] != recv {
		return nil
	}
	if v, ok := s.info.Uses[sel.Sel].(*types.Var); ok && v.IsField() {
		return v
	}
	return nil
}

// outcomesOf returns, once per named type, the error fields of the type
// that one of its methods returns as its only result (an Err accessor),
// with the method that sets each from an error parameter.
func (s *state) outcomesOf(t types.Type) []outcome {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() != s.pass.Pkg {
		return nil
	}
	if s.outcomes == nil {
		s.outcomes = make(map[*types.Named][]outcome)
	}
	if outs, ok := s.outcomes[named]; ok {
		return outs
	}
	var outs []outcome
	for fn := range named.Methods() {
		sig := fn.Type().(*types.Signature)
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !analysisutil.IsError(sig.Results().At(0).Type()) {
			continue
		}
		d := s.res.DeclOf(fn)
		if d == nil || d.Body == nil {
			continue
		}
		var field *types.Var
		ast.Inspect(d.Body, func(n ast.Node) bool {
			if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) == 1 {
				if v := s.recvField(r.Results[0], sig.Recv()); v != nil && analysisutil.IsError(v.Type()) {
					field = v
				}
			}
			return field == nil
		})
		if field == nil {
			continue
		}
		o := outcome{field: field, reader: fn}
		for m := range named.Methods() {
			msig := m.Type().(*types.Signature)
			if msig.Params().Len() != 1 || !analysisutil.IsError(msig.Params().At(0).Type()) || msig.Results().Len() != 0 {
				continue
			}
			md := s.res.DeclOf(m)
			if md == nil || md.Body == nil {
				continue
			}
			if flow.Mentions(md.Body, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok {
					return false
				}
				for _, lhs := range as.Lhs {
					if s.recvField(lhs, msig.Recv()) == field {
						return true
					}
				}
				return false
			}) {
				o.setter = m
				break
			}
		}
		outs = append(outs, o)
	}
	s.outcomes[named] = outs
	return outs
}
