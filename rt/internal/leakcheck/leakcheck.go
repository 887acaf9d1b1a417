// Package leakcheck lets tests of this module check that they leave no
// goroutines behind.
package leakcheck

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// Check records the number of goroutines now and, when the test ends,
// polls until the number is back to at most that, failing the test with a
// dump of all goroutines if it is not within a generous grace period.
// Tests using Check must not run in parallel with other tests of the
// package.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("leaked %d goroutine(s): %d before, %d after\n%s", n-before, before, n, bytes.TrimSpace(buf))
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
}
