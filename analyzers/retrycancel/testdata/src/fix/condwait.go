package fix

import (
	"context"
	"sync"
)

type board struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int
}

func (b *board) WaitFor(ctx context.Context, n int) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.n < n {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.cond.Wait() // want `b.cond.Wait does not return when ctx is canceled`
	}
	return nil
}
