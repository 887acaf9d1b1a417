package retrycancel

import (
	"fmt"
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/flow"
)

// checkSelectBreak reports, in a loop over a collection (retry loops are
// judged whole by checkLoop), a `case <-ctx.Done():` clause of a select
// directly in the loop that ends in an unlabelled break: the break leaves
// the select, not the loop, so once ctx is done the loop goes on with its
// next element, and each round's select picks the Done clause or the
// work at random (a send that finds room):
//
//	for _, u := range users {
//		select {
//		case <-ctx.Done():
//			break // leaves the select only
//		case events <- u:
//		}
//	}
//
// Not reported when every way from the clause back to the select passes
// a look at the same context (a test of ctx.Err() that leaves) or leaves
// the loop.
func (st *state) checkSelectBreak(cur inspector.Cursor, loop ast.Stmt) {
	var body *ast.BlockStmt
	switch l := loop.(type) {
	case *ast.ForStmt:
		body = l.Body
	case *ast.RangeStmt:
		body = l.Body
	}
	var sel *ast.SelectStmt
	for _, s := range body.List {
		if s, ok := s.(*ast.SelectStmt); ok {
			sel = s
			break
		}
	}
	if sel == nil {
		return
	}
	for _, s := range sel.Body.List {
		cc := s.(*ast.CommClause)
		if cc.Comm == nil || len(cc.Body) == 0 {
			continue
		}
		br, ok := cc.Body[len(cc.Body)-1].(*ast.BranchStmt)
		if !ok || br.Tok != token.BREAK || br.Label != nil {
			continue
		}
		x := st.res.DoneContext(cc.Comm)
		if x == nil || st.res.Detached(x) || analysisutil.Leaves(st.info, cc.Body[:len(cc.Body)-1]) {
			continue
		}
		f := st.res.Enclosing(cur)
		if f == nil {
			return
		}
		g := st.graphs.Func(f.Node)
		if g == nil {
			return
		}
		b := caseBody(g.CFG, cc)
		if b == nil {
			continue
		}
		others := map[ast.Node]bool{}
		for _, o := range sel.Body.List {
			if o := o.(*ast.CommClause); o.Comm != nil {
				others[o.Comm] = true
			}
		}
		// The walk starts with the clause's own receive (a case body's
		// entry): back at the select is any receive after that.
		own := true
		back := func(n ast.Node) bool {
			if n == cc.Comm && own {
				own = false
				return false
			}
			return others[n]
		}
		stop := func(n ast.Node) bool {
			if others[n] {
				return false // the select again: back, not a look
			}
			if _, ok := n.(*ast.ReturnStmt); ok {
				return true
			}
			return flow.Mentions(n, func(m ast.Node) bool {
				e, ok := m.(ast.Expr)
				if !ok {
					return false
				}
				if y := st.lookedAt(e); y != nil {
					return st.res.EndsWith(y, x)
				}
				return false
			})
		}
		if _, ok := g.Reaches(flow.Point{Block: b, Index: 0}, back, stop); !ok {
			continue
		}
		what := "next round"
		if _, ok := loop.(*ast.RangeStmt); ok {
			what = "next element"
		}
		st.rep.Report(analysis.Diagnostic{
			Pos: br.Pos(), End: br.End(),
			Message: fmt.Sprintf("this break leaves the select, not the loop: once %s is done %s goes on with the %s, and each round takes this case or another at random",
				analysisutil.Source(st.pass, x), f.Name(), what),
			Related:        []analysis.RelatedInformation{{Pos: cc.Pos(), End: cc.Colon, Message: "the case taken when " + analysisutil.Source(st.pass, x) + " is done"}},
			SuggestedFixes: st.labelBreakFix(f.Body, loop, br),
		})
	}
}

// labelBreakFix makes br break out of loop, under the loop's label or a
// new one that no other statement of the function uses.
func (st *state) labelBreakFix(fbody *ast.BlockStmt, loop ast.Stmt, br *ast.BranchStmt) []analysis.SuggestedFix {
	if fbody == nil {
		return nil
	}
	used := map[string]bool{}
	label := ""
	ast.Inspect(fbody, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok {
			used[ls.Label.Name] = true
			if ls.Stmt == loop {
				label = ls.Label.Name
			}
		}
		return true
	})
	if label != "" {
		return []analysis.SuggestedFix{{
			Message:   "Break out of the loop",
			TextEdits: []analysis.TextEdit{{Pos: br.End(), End: br.End(), NewText: []byte(" " + label)}},
		}}
	}
	name := "loop"
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("loop%d", i)
	}
	indent := analysisutil.IndentAt(st.pass, loop.Pos())
	return []analysis.SuggestedFix{{
		Message: "Break out of the loop",
		TextEdits: []analysis.TextEdit{
			{Pos: loop.Pos(), End: loop.Pos(), NewText: []byte(name + ":\n" + indent)},
			{Pos: br.End(), End: br.End(), NewText: []byte(" " + name)},
		},
	}}
}
