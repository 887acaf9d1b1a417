package fence_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cancelcheck/cancelcheck/rt/fence"
)

func TestZeroFence(t *testing.T) {
	var f fence.Fence
	cur := f.Current()
	if cur.Generation() != 1 || !f.Valid(cur) {
		t.Fatalf("zero Fence: current %v, valid %v", cur.Generation(), f.Valid(cur))
	}
	ran := false
	if err := f.Commit(cur, func() { ran = true }); err != nil || !ran {
		t.Fatalf("Commit(current) = %v, ran %v", err, ran)
	}
	err := f.Commit(fence.Token{}, func() { t.Error("zero Token committed") })
	var se *fence.StaleError
	if !errors.As(err, &se) || !errors.Is(err, fence.ErrStale) || se.Current != cur {
		t.Errorf("Commit(zero Token) = %v", err)
	}
	if f.Valid(fence.Token{}) {
		t.Error("zero Token is valid")
	}
}

func TestBeginSupersedes(t *testing.T) {
	var f fence.Fence
	first := f.Begin()
	second := f.Begin()
	if f.Valid(first) || !f.Valid(second) {
		t.Fatal("Begin did not supersede the earlier token")
	}
	err := f.Commit(first, func() { t.Error("stale commit ran") })
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Token != first || se.Current != second {
		t.Fatalf("Commit(first) = %#v", err)
	}
	if want := "fence: stale token (generation 2, current 3)"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	// A current token may commit more than once.
	for i := 0; i < 2; i++ {
		if err := f.Commit(second, func() {}); err != nil {
			t.Errorf("Commit(second) #%d = %v", i, err)
		}
	}
	f.Advance()
	if f.Valid(second) || f.Commit(second, func() { t.Error("committed after Advance") }) == nil {
		t.Error("Advance did not supersede the current token")
	}
}

// TestAdvanceIsAFence checks the guarantee that once Advance returns, no
// commit with an earlier token runs.
func TestAdvanceIsAFence(t *testing.T) {
	var f fence.Fence
	tok := f.Begin()
	var advanced atomic.Bool
	var wg sync.WaitGroup
	var violations, commits atomic.Int32
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f.Commit(tok, func() {
				commits.Add(1)
				if advanced.Load() {
					violations.Add(1)
				}
			}) == nil {
			}
		}()
	}
	for commits.Load() < 10 {
		runtime.Gosched() // let the committers get going
	}
	f.Advance()
	advanced.Store(true)
	wg.Wait()
	if violations.Load() != 0 {
		t.Errorf("%d commits ran after Advance returned", violations.Load())
	}
}

func TestLatestWins(t *testing.T) {
	var v fence.Value[int]
	if got, tok := v.Load(); got != 0 || tok != (fence.Token{}) {
		t.Fatalf("zero Value = %v, %v", got, tok)
	}
	var wg sync.WaitGroup
	var latest atomic.Uint64
	for i := 1; i <= 20; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := v.Fence.Begin()
			for {
				old := latest.Load()
				if tok.Generation() <= old || latest.CompareAndSwap(old, tok.Generation()) {
					break
				}
			}
			_ = v.Store(tok, i)
		}()
	}
	wg.Wait()
	_, tok := v.Load()
	// The token from the last Begin stays current, so its Store succeeds
	// and every later Store with an older token fails.
	if tok.Generation() != latest.Load() {
		t.Errorf("value stored by generation %d, want the latest %d", tok.Generation(), latest.Load())
	}
}

func TestCommitValue(t *testing.T) {
	var f fence.Fence
	var dst string
	old := f.Begin()
	cur := f.Begin()
	if err := fence.CommitValue(&f, old, &dst, "old"); !errors.Is(err, fence.ErrStale) || dst != "" {
		t.Errorf("stale CommitValue = %v, dst %q", err, dst)
	}
	if err := fence.CommitValue(&f, cur, &dst, "new"); err != nil || dst != "new" {
		t.Errorf("CommitValue = %v, dst %q", err, dst)
	}
}

func BenchmarkBeginCommit(b *testing.B) {
	var f fence.Fence
	var x int
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tok := f.Begin()
		if err := f.Commit(tok, func() { x++ }); err != nil {
			b.Fatal(err)
		}
	}
}
