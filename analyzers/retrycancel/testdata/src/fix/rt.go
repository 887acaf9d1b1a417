package fix

// The package already depends on the runtime module: rt fixes compile.
import _ "github.com/cancelcheck/cancelcheck/rt/wait"
