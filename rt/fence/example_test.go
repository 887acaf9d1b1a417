package fence_test

import (
	"errors"
	"fmt"

	"github.com/cancelcheck/cancelcheck/rt/fence"
)

// A search box starts a query on every keystroke; only the newest query
// may show its results.
func ExampleFence() {
	var f fence.Fence
	var shown string

	slow := f.Begin() // query "ca"
	fast := f.Begin() // query "cat" supersedes it

	fmt.Println(fence.CommitValue(&f, fast, &shown, "results for cat"))
	err := fence.CommitValue(&f, slow, &shown, "results for ca") // arrives late
	fmt.Println(err, errors.Is(err, fence.ErrStale))
	fmt.Println(shown)
	// Output:
	// <nil>
	// fence: stale token (generation 2, current 3) true
	// results for cat
}

func ExampleValue() {
	var v fence.Value[int]
	tok := v.Fence.Begin()
	v.Fence.Advance() // reset: in-flight work must not publish
	fmt.Println(v.Store(tok, 42))
	n, _ := v.Load()
	fmt.Println(n)
	// Output:
	// fence: stale token (generation 2, current 3)
	// 0
}
