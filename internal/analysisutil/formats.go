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
	return knowledge.Formats(fn.Pkg().Path(), RecvTypeName(fn), fn.Name())
}
