package fix

import (
	"context"
	"sync"
)

func store(ctx context.Context, s string) error { return ctx.Err() }

func save(ctx context.Context, s string) error {
	if s == "" {
		return nil
	}
	go func() { // want `goroutine uses the context ctx of save`
		if err := store(ctx, s); err != nil {
			return
		}
		store(ctx, s+".bak")
	}()
	return nil
}

func count(items []string) {
	var wg sync.WaitGroup
	for _, it := range items {
		go func() {
			wg.Add(1) // want `wg.Add inside the goroutine it counts`
			defer wg.Done()
			_ = it
		}()
	}
	wg.Wait()
}

func saveAll(ctx context.Context, items []string) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() { // want `goroutine can end without calling wg.Done`
			if err := store(ctx, it); err != nil {
				return
			}
			store(ctx, it+".bak")
			wg.Done()
		}()
	}
	wg.Wait()
}

type tracker struct{ wg sync.WaitGroup }

func (t *tracker) enter() { t.wg.Add(1) }
func (t *tracker) leave() { t.wg.Done() }

func countTracked(items []string, t *tracker) {
	for _, it := range items {
		go func() {
			t.enter() // want `t.enter\(\), which calls WaitGroup.Add, inside the goroutine it counts`
			defer t.leave()
			_ = it
		}()
	}
	t.wg.Wait()
}
