package orphansend

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
	"github.com/cancelcheck/cancelcheck/passes/ctxflow"
)

// checkGiveUp reports a bare send on a channel field of a value whose type
// also carries the end of that channel's reader: another field that is a
// context, or a channel the package closes (an unsubscribe, a close
// notification: `close(s.canceled)`), when the function that sends never
// looks at that field. A reader that gives up (its subscription canceled,
// its context done) stops receiving, and the send, with no way out, then
// blocks its goroutine forever, and whatever waits for that goroutine
// (tendermint#1811's Publish, watermill#247's delivery goroutines,
// stomp#12's read loop). Not judged: sends already reported by
// checkUnguarded, channels the package also receives from as a bare
// statement (a semaphore, whose send waits for a release, not a reader),
// and signals the sending function closes itself (its own completion).
func checkGiveUp(pass *analysis.Pass, ins *inspector.Inspector, flow *ctxflow.Result, rep *analysisutil.Reporter, skip map[*ast.SendStmt]bool) {
	info := pass.TypesInfo
	var sends []inspector.Cursor
	chans := map[*types.Var]bool{} // the channel fields of those sends
	for c := range ins.Root().Preorder((*ast.SendStmt)(nil)) {
		if cc, ok := c.Parent().Node().(*ast.CommClause); ok && cc.Comm == c.Node() {
			continue
		}
		send := c.Node().(*ast.SendStmt)
		if skip[send] {
			continue
		}
		// Only a field of a struct that has another channel or context
		// field can have a give-up signal: the package walk below is for
		// those alone.
		sel, ok := ast.Unparen(send.Chan).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		ch := fieldOf(info, sel)
		if ch == nil {
			continue
		}
		if st, ok := derefStruct(info.TypeOf(sel.X)); ok && hasSignalField(st, ch) {
			sends = append(sends, c)
			chans[ch] = true
		}
	}
	if len(sends) == 0 {
		return
	}
	// The channel fields closed in the package, with the functions that
	// close them; those received from as a bare statement; the functions
	// that receive from each field; and the pairs of fields set together
	// in a composite literal (a context and the channel it bounds).
	closers := map[*types.Var][]*ctxflow.Func{}
	bareRecv := map[*types.Var]bool{}
	readers := map[*types.Var]map[*ctxflow.Func]bool{}
	together := map[[2]*types.Var]map[*ctxflow.Func]bool{} // by the functions with such a literal
	read := func(c inspector.Cursor, e ast.Expr) {
		if v := fieldOf(info, e); v != nil {
			if readers[v] == nil {
				readers[v] = map[*ctxflow.Func]bool{}
			}
			readers[v][flow.Enclosing(c)] = true
		}
	}
	handed := map[*types.Var]bool{} // channel fields whose value is handed out (returned, passed, copied)
	for c := range ins.Root().Preorder((*ast.CallExpr)(nil), (*ast.ExprStmt)(nil), (*ast.UnaryExpr)(nil), (*ast.RangeStmt)(nil), (*ast.CompositeLit)(nil), (*ast.SelectorExpr)(nil)) {
		switch n := c.Node().(type) {
		case *ast.CallExpr:
			if analysisutil.IsBuiltin(info, n, "close") && len(n.Args) == 1 {
				if v := fieldOf(info, n.Args[0]); v != nil {
					closers[v] = append(closers[v], flow.Enclosing(c))
				}
			}
		case *ast.ExprStmt:
			if un, ok := ast.Unparen(n.X).(*ast.UnaryExpr); ok && un.Op == token.ARROW {
				if v := fieldOf(info, un.X); v != nil {
					bareRecv[v] = true
				}
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				read(c, n.X)
			}
		case *ast.RangeStmt:
			read(c, n.X)
		case *ast.SelectorExpr:
			if v, ok := info.Uses[n.Sel].(*types.Var); ok && chans[v] && escapes(info, c) {
				handed[v] = true
			}
		case *ast.CompositeLit:
			// Only what giveUpField asks: a context field set beside
			// the channel of a candidate send.
			var ctxs, chs []*types.Var
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						if v, ok := info.Uses[id].(*types.Var); ok && v.IsField() {
							switch {
							case chans[v]:
								chs = append(chs, v)
							case analysisutil.IsContext(v.Type()):
								ctxs = append(ctxs, v)
							}
						}
					}
				}
			}
			for _, x := range ctxs {
				for _, ch := range chs {
					k := [2]*types.Var{x, ch}
					if together[k] == nil {
						together[k] = map[*ctxflow.Func]bool{}
					}
					together[k][flow.Enclosing(c)] = true
				}
			}
		}
	}
	var buffered map[*types.Var]bool
	for _, c := range sends {
		send := c.Node().(*ast.SendStmt)
		sel, ok := ast.Unparen(send.Chan).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		ch := fieldOf(info, sel)
		if ch == nil || bareRecv[ch] {
			continue
		}
		if len(readers[ch]) == 0 && !handed[ch] && !ch.Exported() {
			continue // nothing ever reads it: no reader to give up
		}
		st, ok := derefStruct(info.TypeOf(sel.X))
		if !ok {
			continue
		}
		f := flow.Enclosing(c)
		if f == nil {
			continue
		}
		sig, isCtx := giveUpField(st, ch, f, func(fld *types.Var) bool {
			if analysisutil.IsContext(fld.Type()) {
				// A context made part of the value together with the
				// channel (&sub{ctx: ctx, out: make(chan T)}) bounds it.
				return len(together[[2]*types.Var{fld, ch}]) > 0
			}
			return false
		}, closers, readers[ch])
		if sig == nil || watches(info, f, sig) {
			continue
		}
		var makers map[*ctxflow.Func]bool
		if isCtx {
			// A reader that put its own context in the value ends with it;
			// one that made a channel field, not necessarily.
			makers = together[[2]*types.Var{sig, ch}]
		}
		if !readersEndWith(info, readers[ch], f, sig, makers) {
			continue // the package's readers of the channel end otherwise
		}
		if buffered == nil {
			buffered = bufferedFields(pass, ins)
		}
		if buffered[ch] && firstSend(info, ins, c, f, sel.X) {
			continue // a value made here, with room for this one send
		}
		x := types.ExprString(sel.X)
		name := types.ExprString(send.Chan)
		var msg, arm string
		if isCtx {
			arm = x + "." + sig.Name() + ".Done()"
			msg = fmt.Sprintf("this send on %s waits for a reader with no way out, though %s carries the context its reader ends with (%s.%s): once that context is done and the reader has stopped receiving, the send blocks forever, and whatever waits for it; select on %s beside it",
				name, x, x, sig.Name(), arm)
		} else {
			arm = x + "." + sig.Name()
			msg = fmt.Sprintf("this send on %s waits for a reader with no way out, though %s is closed when that reader gives up (%s): once it has, the send blocks forever, and whatever waits for it; select on <-%s beside it",
				name, arm, closersName(closers[sig]), arm)
		}
		text := fmt.Sprintf("select {\ncase %s:\ncase <-%s:\n}", nodeString(pass.Fset, send), arm)
		rep.Report(analysis.Diagnostic{
			Pos: send.Pos(), End: send.End(), Message: msg,
			SuggestedFixes: []analysis.SuggestedFix{{
				Message:   "Give up the send once " + arm + " is done",
				TextEdits: []analysis.TextEdit{{Pos: send.Pos(), End: send.End(), NewText: []byte(text)}},
			}},
		})
	}
}

// hasSignalField reports whether st has a field other than ch that could
// signal the end of ch's reader: a channel or a context.
func hasSignalField(st *types.Struct, ch *types.Var) bool {
	for i := range st.NumFields() {
		f := st.Field(i)
		if f == ch {
			continue
		}
		if _, ok := f.Type().Underlying().(*types.Chan); ok || analysisutil.IsContext(f.Type()) {
			return true
		}
	}
	return false
}

// escapes reports whether the channel field selected at c is used other
// than sent on, received from, closed or assigned: its value is handed on
// (returned, passed, copied) and may be read elsewhere.
func escapes(info *types.Info, c inspector.Cursor) bool {
	switch p := c.Parent().Node().(type) {
	case *ast.SendStmt:
		return p.Value == c.Node()
	case *ast.UnaryExpr:
		return p.Op != token.ARROW
	case *ast.RangeStmt:
		return p.X != c.Node()
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == c.Node() {
				return false
			}
		}
		return true
	case *ast.CallExpr:
		return !analysisutil.IsBuiltin(info, p, "close") && !analysisutil.IsBuiltin(info, p, "len") && !analysisutil.IsBuiltin(info, p, "cap")
	}
	return true
}

// giveUpField returns the field of st, other than ch, that signals the end
// of ch's reader: a context that ctxBounds accepts, or a channel closed in
// the package by a function other than f (and the functions around it)
// that does not read ch itself (a reader that closes a done channel on its
// way out signals its completion, not that it gave up). isCtx says which.
func giveUpField(st *types.Struct, ch *types.Var, f *ctxflow.Func, ctxBounds func(*types.Var) bool, closers map[*types.Var][]*ctxflow.Func, readers map[*ctxflow.Func]bool) (sig *types.Var, isCtx bool) {
	for i := range st.NumFields() {
		fld := st.Field(i)
		if fld == ch {
			continue
		}
		if analysisutil.IsContext(fld.Type()) {
			if ctxBounds(fld) {
				return fld, true
			}
			continue
		}
		cs := closers[fld]
		if len(cs) == 0 {
			continue
		}
		own, external := false, false
		for _, cf := range cs {
			for g := f; g != nil; g = g.Parent {
				if cf == g {
					own = true
				}
			}
			reads := false
			for g := cf; g != nil; g = g.Parent {
				if readers[g] {
					reads = true // defer func() { close(s.done) }() in the reader
				}
			}
			if !reads {
				external = true
			}
		}
		if !own && external {
			return fld, false
		}
	}
	return nil, false
}

// readersEndWith reports whether the functions of the package that
// receive from the channel (other than the sender f) include one that
// looks at sig or made the value with its own context in sig (makers:
// `cb := &callback{ctx: ctx, response: ch}` before selecting on
// ctx.Done()), or there are none (the channel is handed out, read by the
// package's callers): the readers the package shows end with that signal.
func readersEndWith(info *types.Info, readers map[*ctxflow.Func]bool, f *ctxflow.Func, sig *types.Var, makers map[*ctxflow.Func]bool) bool {
	n := 0
	for r := range readers {
		if r == nil || r == f {
			continue
		}
		n++
		if watches(info, r, sig) || makers[r] {
			return true
		}
	}
	return n == 0
}

// firstSend reports whether the send at c is on a channel of a value x
// that f (or a function around it) made itself, with no loop between the
// making and the send: the value's buffer, empty when it was made, holds
// this one send.
func firstSend(info *types.Info, ins *inspector.Inspector, c inspector.Cursor, f *ctxflow.Func, x ast.Expr) bool {
	v := analysisutil.VarObject(info, rootIdent(x))
	if v == nil {
		return false
	}
	// Made: declared from a composite literal (&task{...}) or new(T).
	_, lhs, rhs, idx, ok := analysisutil.Declaration(ins, v)
	if !ok || len(lhs) != len(rhs) {
		return false
	}
	switch r := ast.Unparen(rhs[idx]).(type) {
	case *ast.UnaryExpr:
		if _, ok := ast.Unparen(r.X).(*ast.CompositeLit); !ok || r.Op != token.AND {
			return false
		}
	case *ast.CompositeLit:
	case *ast.CallExpr:
		if !analysisutil.IsBuiltin(info, r, "new") {
			return false
		}
	default:
		return false
	}
	local := false
	for g := f; g != nil; g = g.Parent {
		if v.Pos() >= g.Body.Pos() && v.Pos() < g.Body.End() {
			local = true
		}
	}
	if !local {
		return false
	}
	for p := c.Parent(); p.Node() != nil; p = p.Parent() {
		n := p.Node()
		if n.Pos() <= v.Pos() && v.Pos() < n.End() {
			break // the loops around the making run it again with the send
		}
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return false
		}
	}
	return true
}

// rootIdent returns the identifier an access path starts from (t in
// t.conn.done), or e.
func rootIdent(e ast.Expr) ast.Expr {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return e
		}
	}
}

// watches reports whether f, or a function around it, refers to the field
// sig anywhere: it knows of the reader's end and chose how to treat it.
func watches(info *types.Info, f *ctxflow.Func, sig *types.Var) bool {
	for g := f; g != nil; g = g.Parent {
		found := false
		ast.Inspect(g.Body, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok && info.Uses[s.Sel] == sig {
				found = true
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// derefStruct returns the struct type t is, directly or through a pointer.
func derefStruct(t types.Type) (*types.Struct, bool) {
	if t == nil {
		return nil, false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

// closersName names the functions that close a signal, for messages.
func closersName(fs []*ctxflow.Func) string {
	for _, f := range fs {
		if f != nil && f.Obj != nil {
			return "in " + f.Obj.Name()
		}
	}
	return "in a function literal"
}
