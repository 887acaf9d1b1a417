package untracked

import (
	"context"
	"errors"
	"sync"
)

// BlockHeader is a new chain tip notification.
type BlockHeader struct {
	Height uint32
	Hash   string
}

// TicketChecker updates ticket state for a connected block.
type TicketChecker interface {
	BlockConnected(ctx context.Context, h BlockHeader) error
}

// Notifier reacts to block notifications from the node.
type Notifier struct {
	checker TicketChecker
	blocks  chan BlockHeader
	sink    errSink
}

// Run handles notifications until ctx ends. Every block spawns a handler
// goroutine that nothing waits for, so Run returns while they still run.
// From: decred/vspd#184
// bug: untrackedgo
func (n *Notifier) Run(ctx context.Context) error {
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case h, ok := <-n.blocks:
			if !ok {
				break loop
			}
			go func() {
				n.sink.add(n.checker.BlockConnected(ctx, h))
			}()
		}
	}
	return errors.Join(ctx.Err(), n.sink.join())
}

// RunNearMiss counts every handler in a WaitGroup and drains it before
// returning.
// ok: untrackedgo
func (n *Notifier) RunNearMiss(ctx context.Context) error {
	var wg sync.WaitGroup
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case h, ok := <-n.blocks:
			if !ok {
				break loop
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.sink.add(n.checker.BlockConnected(ctx, h))
			}()
		}
	}
	wg.Wait()
	return errors.Join(ctx.Err(), n.sink.join())
}
