// Package backoffutil imports no context: its sleep helper still gets the
// fact.
package backoffutil

import "time"

// Wait sleeps for the attempt's delay.
func Wait(attempt int) { // want Wait:"sleeps"
	d := time.Duration(attempt) * 250 * time.Millisecond
	time.Sleep(d)
}

// Work does something and then pauses: not a backoff helper.
func Work() {
	println("work")
	time.Sleep(time.Millisecond)
}
