package untracked

import (
	"context"
	"sync"
)

// Joined in a deferred closure that also closes the results.
//
// ok: untrackedgo
func EmitAndReport(ctx context.Context, s Sink, events []Event, results chan<- error) {
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		close(results)
	}()
	for _, e := range events {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- s.Emit(ctx, e)
		}()
	}
}
