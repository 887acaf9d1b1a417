package shutdown

import (
	"context"
	"sync"
)

type kvStore interface {
	Set(k, v string) error
	Close() error
}

type node struct {
	meta  kvStore
	other kvStore
	inbox chan [2]string
}

func (n *node) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case kv := <-n.inbox:
			_ = n.meta.Set(kv[0], kv[1])
		}
	}
}

// The loop is only told to stop; the kvStore is closed under it.
func (n *node) serve(ctx context.Context) error {
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go n.loop(loopCtx)
	<-ctx.Done()
	cancel()
	return n.meta.Close() // want `n.meta.Close\(\) runs right after cancel\(\) without waiting for the goroutine started at line 34, which uses meta`
}

// The same in the stop function it returns.
func (n *node) start(ctx context.Context) func() error {
	ctx, cancel := context.WithCancel(ctx)
	go n.loop(ctx)
	return func() error {
		cancel()
		return n.meta.Close() // want `n.meta.Close\(\) runs right after cancel\(\) without waiting for the goroutine started at line 43`
	}
}

// It waits for the loop first.
func (n *node) serveWaited(ctx context.Context) error {
	loopCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.loop(loopCtx)
	}()
	<-ctx.Done()
	cancel()
	wg.Wait()
	return n.meta.Close()
}

// It closes what the loop does not use.
func (n *node) serveOther(ctx context.Context) error {
	loopCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go n.loop(loopCtx)
	<-ctx.Done()
	cancel()
	return n.other.Close()
}
