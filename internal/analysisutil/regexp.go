package analysisutil

import (
	"regexp"
	"sync"
)

// LazyRegexp returns a function that compiles expr on its first call and
// returns the compiled expression after that. A vet tool starts once per
// package vetted, and compiling every check's expressions at start-up cost
// about 1% of a go vet run; most packages never need them.
func LazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
