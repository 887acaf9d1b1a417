package a

import "context"

type batcher struct{}

func (b *batcher) Flush() {}

type topic struct {
	b      *batcher
	cancel context.CancelFunc
}

// The goroutine signals its end on flushed, and no one listens: shutdown
// returns while the flush is still running.
func (t *topic) shutdown() {
	flushed := make(chan struct{})
	go func() { // want `goroutine closes flushed when it is done, but shutdown never receives from flushed`
		defer close(flushed)
		t.b.Flush()
	}()
	t.cancel()
}

// Near-miss: shutdown waits for the flush, or for ctx.
func (t *topic) shutdownWait(ctx context.Context) error {
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		t.b.Flush()
	}()
	t.cancel()
	select {
	case <-flushed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Near-miss: the channel is handed to the caller, who waits on it.
func (t *topic) shutdownAsync() <-chan struct{} {
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		t.b.Flush()
	}()
	return flushed
}

// Near-miss: a deferred receive waits for it.
func (t *topic) shutdownDeferred() {
	flushed := make(chan struct{})
	defer func() { <-flushed }()
	go func() {
		defer close(flushed)
		t.b.Flush()
	}()
	t.cancel()
}

// Near-miss: the goroutine works with events and closes it when done; it
// is no signal of the goroutine's end.
func (t *topic) watch(ctx context.Context, src func(chan<- string)) <-chan string {
	events := make(chan string, 8)
	out := make(chan string)
	go func() {
		defer close(events)
		defer close(out)
		src(events)
		for {
			select {
			case e := <-events:
				out <- e
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
