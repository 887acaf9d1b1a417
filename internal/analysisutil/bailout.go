package analysisutil

import "golang.org/x/tools/go/analysis"

// NothingToReport ends a pass that bails out early (the package cannot
// contain the pattern): its directives for this check can silence nothing,
// so they are reported as unused, as Reporter.Finish would. Call it on
// every early return of a check that uses a Reporter:
//
//	if !res.ImportsContext {
//		return nil, analysisutil.NothingToReport(pass)
//	}
//
// It returns nil so it can stand in for the pass's result.
func NothingToReport(pass *analysis.Pass) any {
	NewReporter(pass).Finish()
	return nil
}
