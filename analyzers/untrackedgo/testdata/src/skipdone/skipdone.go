// Package skipdone holds goroutines whose Done depends on the path they take.
package skipdone

import (
	"context"
	"errors"
	"sync"
)

type item struct{ id int }

func fetch(ctx context.Context, it item) (string, error) { return "", ctx.Err() }

// An early return on the error skips the Done: Wait never returns.
func fetchAll(ctx context.Context, items []item) []string {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []string
	)
	for _, it := range items {
		wg.Add(1)
		go func() { // want `goroutine can end without calling wg.Done: on that path wg never reaches zero and wg.Wait blocks forever`
			v, err := fetch(ctx, it)
			if err != nil {
				return
			}
			mu.Lock()
			out = append(out, v)
			mu.Unlock()
			wg.Done()
		}()
	}
	wg.Wait()
	return out
}

// Deferred: every path calls Done.
func fetchAllDeferred(ctx context.Context, items []item) []string {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []string
	)
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := fetch(ctx, it)
			if err != nil {
				return
			}
			mu.Lock()
			out = append(out, v)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// Done on both branches: every path calls it.
func fetchAllBranches(ctx context.Context, items []item) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			if _, err := fetch(ctx, it); err != nil {
				wg.Done()
				return
			}
			wg.Done()
		}()
	}
	wg.Wait()
}

// A panic path is no normal end.
func fetchOrPanic(ctx context.Context, it item) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if _, err := fetch(ctx, it); err != nil {
			panic(err)
		}
		wg.Done()
	}()
	wg.Wait()
}

// A deferred closure that calls Done counts, as a deferred call does.
func deferredClosure(ctx context.Context, it item, s *state) {
	s.wg.Add(1)
	go func() {
		defer func() {
			s.wg.Done()
		}()
		if _, err := fetch(ctx, it); err != nil {
			return
		}
	}()
}

type state struct {
	wg   sync.WaitGroup
	errs []error
}

// A struct field's WaitGroup: the select's cancellation arm returns first.
func (s *state) worker(ctx context.Context, jobs <-chan item) {
	s.wg.Add(1)
	go func() { // want `goroutine can end without calling s.wg.Done`
		for {
			select {
			case <-ctx.Done():
				return
			case j, ok := <-jobs:
				if !ok {
					s.wg.Done()
					return
				}
				if _, err := fetch(ctx, j); err != nil {
					s.errs = append(s.errs, err)
				}
			}
		}
	}()
}

// The Done in a callback the goroutine hands on runs when the callback
// does: the graph cannot say, so nothing is reported.
func viaCallback(ctx context.Context, it item, run func(func())) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		if _, err := fetch(ctx, it); err != nil {
			return
		}
		run(func() { wg.Done() })
	}()
	wg.Wait()
}

var errStop = errors.New("stop")

// A function with results inside the goroutine is its own graph: its
// return is not the goroutine's.
func nestedReturn(ctx context.Context, it item) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		check := func() error {
			if it.id < 0 {
				return errStop
			}
			return nil
		}
		_ = check()
		wg.Done()
	}()
	wg.Wait()
}

// A Done per job counts jobs, not workers: a worker that ends when the
// jobs close calls it once per job it took.
func perJob(ctx context.Context, jobs chan item, n int) {
	var wg sync.WaitGroup
	wg.Add(n)
	for range 4 {
		go func() {
			for j := range jobs {
				if _, err := fetch(ctx, j); err != nil {
					wg.Done()
					continue
				}
				wg.Done()
			}
		}()
	}
	wg.Wait()
}

type shards struct {
	cache map[int][]byte
	out   [][]byte
}

// The cached path returns before the deferred Done is registered.
func (s *shards) fetchShard(ctx context.Context, wg *sync.WaitGroup, i int) {
	if b, ok := s.cache[i]; ok {
		s.out[i] = b
		return
	}
	defer wg.Done()
	b, err := fetch(ctx, item{i})
	if err != nil {
		return
	}
	s.out[i] = []byte(b)
}

func (s *shards) fetchAll(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go s.fetchShard(ctx, &wg, i) // want `goroutine can end without calling wg.Done`
	}
	wg.Wait()
}

// Near-miss: the Done is deferred first.
func (s *shards) fetchShardDeferred(ctx context.Context, wg *sync.WaitGroup, i int) {
	defer wg.Done()
	if b, ok := s.cache[i]; ok {
		s.out[i] = b
		return
	}
	b, _ := fetch(ctx, item{i})
	s.out[i] = []byte(b)
}

func (s *shards) fetchAllDeferred(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go s.fetchShardDeferred(ctx, &wg, i)
	}
	wg.Wait()
}

// Near-miss: the Done is skipped only when there is no WaitGroup.
func (s *shards) fetchOptional(ctx context.Context, wg *sync.WaitGroup, i int) {
	if wg != nil {
		defer wg.Done()
	}
	b, _ := fetch(ctx, item{i})
	s.out[i] = []byte(b)
}

func (s *shards) fetchAllOptional(ctx context.Context, n int) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go s.fetchOptional(ctx, &wg, i)
	}
	wg.Wait()
}

// Near-miss: the Done compensates an Add of the goroutine's own, for a
// worker it failed to start; the goroutine itself is not counted.
func (s *state) setup(ctx context.Context, start func(func()) bool, it item) {
	go func() {
		if _, err := fetch(ctx, it); err != nil {
			return
		}
		s.wg.Add(1)
		if !start(func() { defer s.wg.Done() }) {
			s.wg.Done()
		}
	}()
}
