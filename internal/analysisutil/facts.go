package analysisutil

import (
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// ExportFuncFact exports fact about fn when another package can name fn.
//
// A fact about an unexported function or method is never imported: other
// packages cannot call it, and the passes answer for their own package from
// their own summaries. Yet the vet tool writes it to the package's facts
// file, and for a method every importer writes it again, so each package
// would decode the facts of all unexported methods below it. Measured on
// this module's dependencies, three quarters of the ownership and
// goroutines facts were about unexported functions.
func ExportFuncFact(pass *analysis.Pass, fn *types.Func, fact analysis.Fact) {
	if fn.Exported() {
		pass.ExportObjectFact(fn, fact)
	}
}
