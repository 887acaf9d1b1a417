package analysisutil

import (
	"go/types"

	"github.com/cancelcheck/cancelcheck/internal/knowledge"
)

// FormatsOperands reports whether fn only formats or logs its operands and
// keeps no reference to them (knowledge.Formats): fmt.Print(resp) neither
// releases resp nor does work a loop repeats.
func FormatsOperands(fn *types.Func) bool {
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	typ := ""
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			typ = n.Obj().Name()
		}
	}
	return knowledge.Formats(fn.Pkg().Path(), typ, fn.Name())
}
