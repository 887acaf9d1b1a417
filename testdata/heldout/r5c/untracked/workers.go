package untracked

import (
	"context"
	"sync"
)

// Job is one unit of work.
type Job struct {
	ID   int
	Data []byte
}

// RunWorkers processes jobs with n workers until the channel closes. Each
// worker calls wg.Done after its labelled loop, but the ctx.Done case
// `return`s out of the goroutine without reaching it, so after cancellation
// wg.Wait blocks forever.
// From: homeport/havener#161
// bug: untrackedgo
func RunWorkers(ctx context.Context, n int, jobs <-chan Job, handle func(Job)) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
		drain:
			for {
				select {
				case <-ctx.Done():
					return
				case j, ok := <-jobs:
					if !ok {
						break drain
					}
					handle(j)
				}
			}
			wg.Done()
		}()
	}
	wg.Wait()
}

// RunPool is the near-miss of RunWorkers: the ctx.Done case breaks out of the
// labelled loop too, so every exit passes wg.Done.
// From: homeport/havener#161
// ok: untrackedgo
func RunPool(ctx context.Context, n int, jobs <-chan Job, handle func(Job)) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
		drain:
			for {
				select {
				case <-ctx.Done():
					break drain
				case j, ok := <-jobs:
					if !ok {
						break drain
					}
					handle(j)
				}
			}
			wg.Done()
		}()
	}
	wg.Wait()
}
