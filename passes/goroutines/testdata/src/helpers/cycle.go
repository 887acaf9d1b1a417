package helpers

// Relay closes done on the last round and hands the rest back to Signal.
func Relay(done chan struct{}, n int) { // want Relay:"joinsParam\\(0\\)"
	if n > 1 {
		Signal(done, n-1)
		return
	}
	close(done)
}

// Signal closes done only through Relay: the two call each other, and facts are
// exported in source order, so Relay's summary is asked first, while
// Signal's is still being computed inside it.
func Signal(done chan struct{}, n int) { // want Signal:"joinsParam\\(0\\)"
	if n == 0 {
		return
	}
	Relay(done, n)
}

// Idle closes nothing, in a cycle of its own: no fact.
func Idle(done chan struct{}, n int) {
	if n > 0 {
		idle(done, n-1)
	}
}

func idle(done chan struct{}, n int) { Idle(done, n) }
