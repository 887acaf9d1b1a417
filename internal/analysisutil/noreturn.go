package analysisutil

import (
	"go/ast"
	"go/token"
	"go/types"
)

// NoReturn reports whether call never returns to its caller: the builtin
// panic, os.Exit, runtime.Goexit, log.Fatal* and log.Panic* (functions and
// *log.Logger methods), testing's Fatal*, FailNow and Skip*, and any
// function or method named Fatal, Fatalf or Fatalln (the convention of
// logging packages: grpclog, klog, logrus, zap's sugared logger).
//
// It is a table rather than ctrlflow's NoReturn facts: the checks that use
// it build no control-flow graphs, and a logger's Fatalf is often an
// interface method, which no fact describes.
func NoReturn(info *types.Info, call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			return b.Name() == "panic"
		}
	}
	fn := Callee(info, call)
	if fn == nil {
		// A method of an interface (a logger's Fatalf) has no static
		// callee but a name.
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		return ok && fatalName(sel.Sel.Name)
	}
	if fatalName(fn.Name()) {
		return true
	}
	if fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case "os":
		return fn.Name() == "Exit"
	case "runtime":
		return fn.Name() == "Goexit"
	case "log":
		switch fn.Name() {
		case "Panic", "Panicf", "Panicln":
			return true
		}
	case "testing":
		switch fn.Name() {
		case "FailNow", "Skip", "Skipf", "SkipNow":
			return true
		}
	}
	return false
}

func fatalName(name string) bool {
	return name == "Fatal" || name == "Fatalf" || name == "Fatalln"
}

// Leaves reports whether a statement list ends by leaving the code around
// it for good: a return, a break or goto, or a call that never returns
// (NoReturn). A continue does not leave a loop: it goes round again.
func Leaves(info *types.Info, list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	switch s := list[len(list)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK || s.Tok == token.GOTO
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			return NoReturn(info, call)
		}
	}
	return false
}
