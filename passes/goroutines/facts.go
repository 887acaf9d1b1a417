package goroutines

import (
	"fmt"
	"slices"
	"strings"
)

// JoinsParam is an object fact on a function: it signals through the
// parameters listed (0-based): it calls Done on a *sync.WaitGroup parameter,
// or sends on or closes a channel parameter. A goroutine running it is
// joined through the argument passed there ("joins via parameter N").
type JoinsParam struct{ Params []int }

// AFact marks JoinsParam as an analysis fact.
func (*JoinsParam) AFact() {}

func (f *JoinsParam) String() string { return "joinsParam" + intList(f.Params) }

// Spawns is an object fact on a function: it starts a goroutine running its
// function parameters listed (0-based) and returns without waiting for it,
// so each call starts a goroutine.
type Spawns struct{ Params []int }

// AFact marks Spawns as an analysis fact.
func (*Spawns) AFact() {}

func (f *Spawns) String() string { return "spawns" + intList(f.Params) }

// Bound is an object fact on a function: it is a worker loop or a watcher
// that returns when a context or a channel it reaches is done, so a
// goroutine running it is bound to that context or channel rather than
// leaked.
type Bound struct{}

// AFact marks Bound as an analysis fact.
func (*Bound) AFact() {}

func (*Bound) String() string { return "bound" }

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return "(" + strings.Join(s, ",") + ")"
}

func sortedKeys(m map[int]bool) []int {
	var out []int
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
