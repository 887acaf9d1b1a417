package foldedtimeout

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/cancelcheck/cancelcheck/internal/analysisutil"
)

// checkCauses reports a cancellation given a cause that does not wrap
// context.Canceled (`cancel(errors.New("replaced"))`, a CancelCauseFunc
// called with a fresh error) in a package that itself asks whether a
// context's cause is a cancellation (`errors.Is(context.Cause(ctx),
// context.Canceled)`): that test is false for this cancellation, so the
// package reports a deliberate stop as a failure. Causes that wrap
// Canceled (`fmt.Errorf("stopped: %w", context.Canceled)`) pass the test.
func (s *state) checkCauses() {
	var reader *ast.CallExpr
	var cancels []*ast.CallExpr
	for c := range s.ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := c.Node().(*ast.CallExpr)
		if analysisutil.IsCallToFunc(s.info, call, "errors", "Is") && len(call.Args) == 2 && reader == nil {
			if s.sentinel(call.Args[1]) == "Canceled" && s.isCause(call.Args[0]) {
				reader = call
			}
			continue
		}
		if t := s.info.TypeOf(call.Fun); t != nil && analysisutil.IsNamed(t, "context", "CancelCauseFunc") && len(call.Args) == 1 && s.freshCause(call.Args[0]) {
			cancels = append(cancels, call)
		}
	}
	if reader == nil {
		return
	}
	for _, call := range cancels {
		s.rep.Report(analysis.Diagnostic{
			Pos: call.Pos(), End: call.End(),
			Message: fmt.Sprintf("%s cancels with a cause that does not wrap context.Canceled, so errors.Is(context.Cause(ctx), context.Canceled), which this package tests, is false for this cancellation: a deliberate stop is reported as a failure; wrap context.Canceled in the cause (fmt.Errorf(\"...: %%w\", context.Canceled))",
				types.ExprString(call.Fun)),
			Related: []analysis.RelatedInformation{{Pos: reader.Pos(), End: reader.End(), Message: "the cause is tested for a cancellation here"}},
		})
	}
}

// isCause reports whether e is context.Cause(x), or a variable only ever
// assigned it.
func (s *state) isCause(e ast.Expr) bool {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		return analysisutil.IsCallToFunc(s.info, call, "context", "Cause")
	}
	return s.res.CtxEndOf(e) != nil && s.res.CtxErrOf(e) == nil
}

// freshCause reports whether e makes an error that cannot match
// context.Canceled: errors.New(...), or fmt.Errorf with a constant format
// and no %w.
func (s *state) freshCause(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	if analysisutil.IsCallToFunc(s.info, call, "errors", "New") {
		return true
	}
	if analysisutil.IsCallToFunc(s.info, call, "fmt", "Errorf") && len(call.Args) > 0 {
		tv, ok := s.info.Types[call.Args[0]]
		return ok && tv.Value != nil && tv.Value.Kind() == constant.String && !strings.Contains(constant.StringVal(tv.Value), "%w")
	}
	return false
}
