// Package stale imports no context: the check bails out early, and its
// directives, which can silence nothing, are still reported.
package stale

func sum(xs []int) int {
	//cancelcheck:ignore swallowcancel the context used to be passed here // want `directive silences no swallowcancel finding on this or the next line; remove it`
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
