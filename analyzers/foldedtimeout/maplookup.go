package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
)

// checkMapLookup reports m[err] on a map keyed by error values that the
// package keys by a context sentinel (`ignored: map[error]bool{context.Canceled:
// true}`, `m[context.DeadlineExceeded] = ...`): the lookup is an ==
// comparison, so a wrapped cancellation misses its key.
func (s *state) checkMapLookup(cur inspector.Cursor, ix *ast.IndexExpr) {
	t := s.info.TypeOf(ix.X)
	if t == nil {
		return
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok || !types.Identical(m.Key(), types.Universe.Lookup("error").Type()) {
		return
	}
	if _, isAssign := cur.Parent().Node().(*ast.AssignStmt); isAssign {
		for _, l := range cur.Parent().Node().(*ast.AssignStmt).Lhs {
			if l == ix {
				return // a store, not a lookup
			}
		}
	}
	if s.sentinelKeyed == nil {
		s.sentinelKeyed = s.sentinelKeyedMaps()
	}
	obj := s.mapObj(ix.X)
	if obj == nil || s.sentinelKeyed[obj] == "" || s.sentinel(ix.Index) != "" || !s.wrappable(cur, ix.Index) {
		return
	}
	s.rep.Report(analysis.Diagnostic{
		Pos: ix.Pos(),
		End: ix.End(),
		Message: fmt.Sprintf("%s looks %s up by ==: a wrapped cancellation (fmt.Errorf with %%w, most clients wrap) is not the context.%s key, so it is missed exactly when it matters; test the keys with errors.Is",
			types.ExprString(ix), types.ExprString(ix.Index), s.sentinelKeyed[obj]),
	})
}

// mapObj returns the variable or field a map expression names.
func (s *state) mapObj(e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return s.info.Uses[e]
	case *ast.SelectorExpr:
		return s.info.Uses[e.Sel]
	}
	return nil
}

// sentinelKeyedMaps returns the variables and fields of the package that
// are given a map with a context sentinel among its keys, with the
// sentinel's name.
func (s *state) sentinelKeyedMaps() map[types.Object]string {
	out := make(map[types.Object]string)
	litKey := func(e ast.Expr) string {
		lit, ok := ast.Unparen(e).(*ast.CompositeLit)
		if !ok {
			return ""
		}
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if name := s.sentinel(kv.Key); name != "" {
					return name
				}
			}
		}
		return ""
	}
	for c := range s.ins.Root().Preorder((*ast.KeyValueExpr)(nil), (*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil)) {
		switch n := c.Node().(type) {
		case *ast.KeyValueExpr: // a field of a struct literal
			if id, ok := n.Key.(*ast.Ident); ok {
				if f, ok := s.info.Uses[id].(*types.Var); ok && f.IsField() {
					if name := litKey(n.Value); name != "" {
						out[f] = name
					}
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok {
					if name := s.sentinel(ix.Index); name != "" {
						if obj := s.mapObj(ix.X); obj != nil {
							out[obj] = name
						}
					}
					continue
				}
				if i < len(n.Rhs) && len(n.Lhs) == len(n.Rhs) {
					if name := litKey(n.Rhs[i]); name != "" {
						if obj := s.mapObj(l); obj != nil {
							out[obj] = name
						} else if id, ok := l.(*ast.Ident); ok && s.info.Defs[id] != nil {
							out[s.info.Defs[id]] = name
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					if name := litKey(n.Values[i]); name != "" {
						out[s.info.Defs[id]] = name
					}
				}
			}
		}
	}
	return out
}
