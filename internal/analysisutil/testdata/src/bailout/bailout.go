package bailout

func F() int {
	return 1 //cancelcheck:ignore bailer stale: nothing here to silence // want `directive silences no bailer finding on this or the next line; remove it`
}

//cancelcheck:ignore otherchk not this check's directive
func G() {}
