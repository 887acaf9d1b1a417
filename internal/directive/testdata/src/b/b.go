//cancelcheck:file-ignore swallowcancell a whole file, misspelt // want `this //cancelcheck:file-ignore directive names swallowcancell, which is not a cancelcheck check, so it silences nothing; did you mean swallowcancel\?`

package b

//cancelcheck:ignore swallowcancel,detachedctz two checks, one misspelt // want `names detachedctz, which is not a cancelcheck check, so it silences nothing; did you mean detachedctx\?`
func Multi() {}

//cancelcheck:ignore swallowcancel,,detachedctx a stray comma // want `has an empty check name`
func Stray() {}

//cancelcheck:ignore swallowcancel,detachedctx both known: fine
func Known() {}

/* // want `this //cancelcheck:ignore directive gives no reason, so it silences nothing` */ //cancelcheck:ignore swallowcancel
func NoReason() {}

/* // want `this // detached: comment gives no reason` */ // detached:
func LegacyNoReason() {}

// detached: the older spelling, with a reason: fine
func Legacy() {}

/* // want `names no check` */ //cancelcheck:ignore
func NoCheck() {}
