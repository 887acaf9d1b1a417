package stop

import "strconv"

// A Reason says why a piece of work stopped. The zero Reason is [Finished].
type Reason int

const (
	// Finished means the work ran to completion without an error.
	Finished Reason = iota
	// Canceled means the work stopped because a context was canceled,
	// for any cause other than [ErrShutdown].
	Canceled
	// TimedOut means the work stopped because a context deadline passed,
	// whatever cause other than [ErrShutdown] was recorded for it.
	TimedOut
	// ShutDown means the work stopped because its context ended with
	// [ErrShutdown] as the cause.
	ShutDown
	// Failed means the work returned an error of its own that is not the
	// end of its context.
	Failed
)

var reasonNames = [...]string{
	Finished: "finished",
	Canceled: "canceled",
	TimedOut: "timed out",
	ShutDown: "shut down",
	Failed:   "failed",
}

// String returns the lower-case name of r, such as "timed out".
func (r Reason) String() string {
	if r >= 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}
