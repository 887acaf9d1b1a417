package a

import "sync"

type transfer struct {
	limited bool
	size    int
}

func update(t transfer) { _ = t.size }

// checkLimited returns early only when no goroutine started: the flag is
// set beside every wg.Add.
func checkLimited(ts []transfer) {
	var wg sync.WaitGroup
	started := false
	for _, t := range ts {
		if t.limited {
			started = true
			wg.Add(1)
			go func() {
				defer wg.Done()
				update(t)
			}()
		}
	}
	if !started {
		return
	}
	wg.Wait()
}

// checkLimitedWrongFlag tests a flag that is not set beside the goroutine.
func checkLimitedWrongFlag(ts []transfer, verbose bool) {
	var wg sync.WaitGroup
	any := false
	for _, t := range ts {
		any = true
		if t.limited {
			wg.Add(1)
			go func() { // want `goroutine counted in wg outlives checkLimitedWrongFlag, which can return without wg.Wait`
				defer wg.Done()
				update(t)
			}()
		}
	}
	if any && !verbose {
		return
	}
	wg.Wait()
}

// checkLimitedReset clears the flag again: not a flag that stays set.
func checkLimitedReset(ts []transfer) {
	var wg sync.WaitGroup
	started := false
	for _, t := range ts {
		if t.limited {
			started = true
			wg.Add(1)
			go func() { // want `goroutine counted in wg outlives checkLimitedReset, which can return without wg.Wait`
				defer wg.Done()
				update(t)
			}()
		}
		if t.size == 0 {
			started = false
		}
	}
	if !started {
		return
	}
	wg.Wait()
}

func notify(name string) error { return nil }

// notifyFirst starts one goroutine and leaves the loop: not one per
// element.
func notifyFirst(names []string) string {
	for _, n := range names {
		if n != "" {
			go notify(n)
			return n
		}
	}
	return ""
}

// notifyAll starts one per element, and drops each one's error.
func notifyAll(names []string) {
	for _, n := range names {
		go notify(n) // want `goroutines started for each element of the loop are never waited for: notifyAll returns while they still run, and the errors they return are lost`
	}
}
