// Package stale starts no goroutine: the check bails out early, and its
// directives, which can silence nothing, are still reported.
package stale

func sum(xs []int) int {
	//cancelcheck:ignore untrackedgo the flusher goroutine used to be here // want `directive silences no untrackedgo finding on this or the next line; remove it`
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
