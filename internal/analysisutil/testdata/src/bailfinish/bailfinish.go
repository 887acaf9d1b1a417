// Package bailfinish: a check that returns early without a Reporter still
// reports its stale directives, through Finishing.
package bailfinish

func F() int {
	return 1 //cancelcheck:ignore quitter stale: nothing here to silence // want `directive silences no quitter finding on this or the next line; remove it`
}
