package analysisutil

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// IsLogCall reports whether call only records something: a function of the
// log or log/slog packages, fmt.Print*/Fprint*, a method of testing.T/B/F
// that logs or fails, or a function or method of another package whose name
// starts with a logging word (Print, Log, Debug, Info, Warn, Error, Fatal,
// Trace, Notice) and that returns nothing (zap, logrus, klog, logr...).
// A call through a function value (a field, parameter or variable) of a
// printf shape, func(format string, args ...any) with no results, logs too:
// it has nothing to hand a value back through but its formatting.
// A value passed only to such calls is not propagated.
func IsLogCall(info *types.Info, call *ast.CallExpr) bool {
	fn := Callee(info, call)
	if fn == nil {
		sig, ok := info.TypeOf(call.Fun).(*types.Signature)
		return ok && printfShape(sig)
	}
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "log", "log/slog":
		return true
	case "fmt":
		return strings.HasPrefix(fn.Name(), "Print") || strings.HasPrefix(fn.Name(), "Fprint")
	case "testing":
		return true
	case "errors":
		return false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Results().Len() != 0 {
		return false
	}
	name := strings.ToLower(fn.Name())
	for _, w := range [...]string{"print", "log", "debug", "info", "warn", "error", "fatal", "trace", "notice", "crit"} {
		if strings.HasPrefix(name, w) {
			return true
		}
	}
	return false
}

// printfShape reports whether sig is func(string, ...any) with no results.
func printfShape(sig *types.Signature) bool {
	if sig.Results().Len() != 0 || !sig.Variadic() || sig.Params().Len() != 2 {
		return false
	}
	if b, ok := sig.Params().At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return false
	}
	sl, ok := sig.Params().At(1).Type().(*types.Slice)
	if !ok {
		return false
	}
	it, ok := sl.Elem().Underlying().(*types.Interface)
	return ok && it.Empty()
}

// IsLogOrPanic reports whether call logs (IsLogCall) or is the builtin
// panic: either way a value passed to it is not returned to a caller.
func IsLogOrPanic(info *types.Info, call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
			return true
		}
	}
	return IsLogCall(info, call)
}

// UsedOutsideLogs reports whether obj is mentioned in n other than inside
// calls that only log (IsLogOrPanic) and other than as `_ = obj`.
func UsedOutsideLogs(info *types.Info, n ast.Node, obj types.Object) bool {
	return UsedOutsideLogsAfter(info, n, obj, token.NoPos)
}

// UsedOutsideLogsAfter is UsedOutsideLogs counting only uses after pos.
func UsedOutsideLogsAfter(info *types.Info, n ast.Node, obj types.Object, pos token.Pos) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if IsLogOrPanic(info, n) {
				return false
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 1 && len(n.Rhs) == 1 {
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
					return false
				}
			}
		case *ast.Ident:
			if info.Uses[n] == obj && n.Pos() > pos {
				found = true
			}
		}
		return true
	})
	return found
}
