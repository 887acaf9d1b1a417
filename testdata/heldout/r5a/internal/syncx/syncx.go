// Package syncx holds goroutine and channel helpers shared by the untracked and orphan examples.
package syncx

import (
	"context"
	"sync"
)

// Go runs fn in a goroutine registered with wg, so a later wg.Wait waits for it.
// ok: untrackedgo
func Go(wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
}

// SendCtx delivers v on ch unless ctx ends first, in which case it returns ctx.Err().
// ok: orphansend
func SendCtx[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
