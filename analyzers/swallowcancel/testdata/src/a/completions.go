package a

import (
	"context"
	"time"
)

type writeReq struct {
	key  string
	done func(err error)
}

type batcher struct {
	reqs  chan writeReq
	flush func(ctx context.Context, batch []writeReq) error
}

// run completes the pending writes as persisted when ctx ends.
func (b *batcher) run(ctx context.Context) {
	var pending []writeReq
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, r := range pending {
				r.done(nil) // want `r.done completes with a nil error when ctx is done: whoever waits on it is told the work succeeded although it was abandoned; pass ctx.Err\(\)`
			}
			return
		case r := <-b.reqs:
			pending = append(pending, r)
		case <-tick.C:
			err := b.flush(ctx, pending)
			for _, r := range pending {
				r.done(err)
			}
			pending = nil
		}
	}
}

// runChecked completes them with the context's error.
func (b *batcher) runChecked(ctx context.Context) {
	var pending []writeReq
	for {
		select {
		case <-ctx.Done():
			for _, r := range pending {
				r.done(ctx.Err())
			}
			return
		case r := <-b.reqs:
			pending = append(pending, r)
		}
	}
}

// answer tells a waiter on a channel of errors that all went well.
func answer(ctx context.Context, result chan<- error, work <-chan int) {
	for {
		select {
		case <-ctx.Done():
			result <- nil // want `this send on result completes with a nil error when ctx is done`
			return
		case <-work:
		}
	}
}

// answerOK reports a done signal on a channel of empty structs.
func answerOK(ctx context.Context, done chan<- struct{}, work <-chan int) {
	for {
		select {
		case <-ctx.Done():
			done <- struct{}{}
			return
		case <-work:
		}
	}
}
