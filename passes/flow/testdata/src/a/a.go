package a

import (
	"context"
	"log"
	"os"
)

func done()       {}
func work() error { return nil }
func check() bool { return false }
func locate()     {}

func deferred() { // want "every path calls done"
	defer done()
	if check() {
		return
	}
	work()
}

func skipped(x bool) { // want "exit at line 24 skips done"
	if x {
		return
	}
	done()
}

func panics(x bool) { // want "every path calls done"
	if x {
		panic("no")
	}
	done()
}

func fatal(x bool, l *log.Logger) { // want "every path calls done"
	if x {
		l.Fatalf("no")
	}
	if !x {
		os.Exit(1)
	}
	done()
}

type logger interface{ Fatalf(string, ...any) }

func fatalIface(x bool, l logger) { // want "every path calls done"
	if x {
		l.Fatalf("no")
	}
	done()
}

func results(x bool) error { // want "exit at line 62 skips done"
	for { // want "no working round skips check"
		if x {
			done()
			return nil
		}
		if check() {
			return work()
		}
	}
}

func blocked(ch chan int) { // want "every path calls done"
	select {
	case <-ch:
		done()
	}
}

func literal() { // want "exit at line 79 skips done"
	f := func() { // want "every path calls done"
		done()
	}
	f()
}

func loopSkips(ctx context.Context) {
	for { // want "a working round skips check"
		if err := work(); err == nil {
			return
		}
		if ctx.Err() != nil {
			continue
		}
		check()
	}
}

func loopChecks() {
	for i := 0; i < 3; i++ { // want "no working round skips check"
		if check() {
			return
		}
		work()
	}
}

func loopContinueRoutes(x bool) {
	for range 3 { // want "a working round skips check"
		work()
		if x {
			continue
		}
		check()
	}
}

func loopCond() {
	for !check() { // want "no working round skips check"
		work()
	}
}

func checkedInCond() {
	for { // want "no working round skips check"
		if check() {
			work()
		}
	}
}

func where(ch chan int, x bool) {
	if x {
		locate() // want "in IfThen, node \\*ast.ExprStmt"
	}
	for range ch { // want "no working round skips check"
		locate() // want "in RangeBody, node \\*ast.ExprStmt"
	}
	go func() {
		locate() // want "in Body, node \\*ast.ExprStmt"
	}()
	select {
	case v := <-ch:
		_ = v
		locate() // want "in SelectCaseBody, node \\*ast.ExprStmt"
	}
	return
	locate() // want "not located"
}

func rangeHead(ch chan int) {
	for v := range ch { // want "a working round skips check"
		if v > 0 {
			work()
		}
	}
}

func selectDefault(ch chan int) { // want "exit at line 158 skips done"
	select {
	case <-ch:
		done()
	default:
		return
	}
}
