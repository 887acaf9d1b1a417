package a

//cancelcheck:ignore swallowcancel a known check: not this analyzer's business
func Known() {}

//cancelcheck:ignore swallowcancell a typo // want `names swallowcancell, which is not a cancelcheck check, so it silences nothing; did you mean swallowcancel\?`
func Typo() {}

//cancelcheck:ignore nosuchcheck whatever // want `names nosuchcheck, which is not a cancelcheck check, so it silences nothing; known checks: detachedctx, swallowcancel`
func Unknown() {}

//cancelcheck:ignored swallowcancell not a directive at all
func NotDirective() {}

// cancelcheck:ignore swallowcancell a spaced comment is not a directive either
func Spaced() {}

func Trailing() {
	_ = 1 //cancelcheck:ignore	detachedctz tab-separated // want `did you mean detachedctx\?`
}
