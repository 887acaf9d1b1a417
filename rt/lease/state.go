package lease

import "strconv"

// A State is where a lease is in its life.
type State int

const (
	// Held means the resource is held and its cleanup has not run.
	Held State = iota
	// Releasing means the cleanup is running now.
	Releasing
	// Released means the cleanup ran and succeeded.
	Released
	// Pending means the cleanup failed because its context ended, so
	// the resource may still be held; a later Release or a [Reaper] will
	// try again.
	Pending
	// Failed means the cleanup returned an error of its own while its
	// context was live. It is not retried.
	Failed
)

var stateNames = [...]string{Held: "held", Releasing: "releasing", Released: "released", Pending: "pending", Failed: "failed"}

// String returns the lower-case name of s, such as "pending".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}
