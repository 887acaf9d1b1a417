package driver

import (
	"fmt"
	"go/token"
	"runtime"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// InternalErrorCategory is the category of the diagnostic that reports a
// panic inside a check; the standalone driver counts it as an internal
// error, not a finding.
const InternalErrorCategory = "internal-error"

// bugURL is where internal errors should be reported.
const bugURL = "https://github.com/cancelcheck/cancelcheck/issues/new"

// passPanic is the result of a pass that panicked. Passes that require it
// hand it on unchanged instead of running; the reporting check at the root
// turns it into an internal-error diagnostic.
type passPanic struct{ msg string }

// guard returns copies of roots and everything they require whose Run
// recovers from a panic, so one check crashing on one package neither
// stops the other checks nor the other packages. A panic in a reporting
// check becomes an internal-error diagnostic on that package; a panic in
// a pass it requires does too, through the checks that require the pass.
// With named, each root's messages end in " [check]", as in the
// standalone driver's text format: go vet's plain output names no
// analyzer, and suppression directives need the name.
func guard(roots []*analysis.Analyzer, named bool) []*analysis.Analyzer {
	copies := make(map[*analysis.Analyzer]*analysis.Analyzer)
	isRoot := make(map[*analysis.Analyzer]bool)
	for _, a := range roots {
		isRoot[a] = true
	}
	var wrap func(a *analysis.Analyzer) *analysis.Analyzer
	wrap = func(a *analysis.Analyzer) *analysis.Analyzer {
		if c, ok := copies[a]; ok {
			return c
		}
		c := new(analysis.Analyzer)
		*c = *a
		copies[a] = c
		c.Requires = make([]*analysis.Analyzer, len(a.Requires))
		orig := make(map[*analysis.Analyzer]*analysis.Analyzer)
		for i, r := range a.Requires {
			c.Requires[i] = wrap(r)
			orig[c.Requires[i]] = r
		}
		root := isRoot[a]
		c.Run = func(pass *analysis.Pass) (result any, err error) {
			p := *pass
			p.Analyzer = a
			if root && named {
				p.Report = func(d analysis.Diagnostic) {
					d.Message += " [" + a.Name + "]"
					pass.Report(d)
				}
			}
			p.ResultOf = make(map[*analysis.Analyzer]any, len(pass.ResultOf))
			for k, v := range pass.ResultOf {
				if pp, ok := v.(*passPanic); ok {
					if root {
						reportPanic(pass, pp.msg)
						return nil, nil
					}
					return pp, nil
				}
				if o, ok := orig[k]; ok {
					k = o
				}
				p.ResultOf[k] = v
			}
			defer func() {
				if r := recover(); r != nil {
					msg := fmt.Sprintf("the %s %s panicked on package %s: %v%s",
						a.Name, kind(root), pass.Pkg.Path(), r, panicSite())
					if root {
						reportPanic(pass, msg)
						result, err = nil, nil
					} else {
						result, err = &passPanic{msg}, nil
					}
				}
			}()
			return a.Run(&p)
		}
		return c
	}
	out := make([]*analysis.Analyzer, len(roots))
	for i, a := range roots {
		out[i] = wrap(a)
	}
	return out
}

func kind(root bool) string {
	if root {
		return "check"
	}
	return "pass"
}

func reportPanic(pass *analysis.Pass, msg string) {
	pos := token.NoPos
	if len(pass.Files) > 0 {
		pos = pass.Files[0].Package
	}
	pass.Report(analysis.Diagnostic{
		Pos:      pos,
		Category: InternalErrorCategory,
		Message:  "internal error: " + msg + "; please report it at " + bugURL + " with this message, cancelcheck -version (" + Version() + ") and, if you can, the code of this package",
	})
}

// panicSite returns " (at file:line)" for the frame that panicked, read
// from the current goroutine's stack inside a deferred recover.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	sawPanic := false
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			sawPanic = sawPanic || f.Function == "runtime.gopanic" || strings.HasPrefix(f.Function, "runtime.panic")
		} else if sawPanic {
			file := f.File
			if i := strings.LastIndex(file, "/cancelcheck/"); i >= 0 {
				file = file[i+len("/cancelcheck/"):] // module-relative
			} else if parts := strings.Split(file, "/"); len(parts) > 3 {
				file = strings.Join(parts[len(parts)-3:], "/")
			}
			return fmt.Sprintf(" (at %s:%d in %s)", file, f.Line, f.Function)
		}
		if !more {
			break
		}
	}
	return ""
}
