package a

import (
	"context"
	"sync"
)

type hook struct{ url string }

type dispatcher struct {
	workers int
	deliver func(ctx context.Context, h hook) error
	failed  func(h hook, err error)
}

// flush closes the job channel when every hook is handed out, but nothing
// waits for the workers: deliveries of the last hooks go on after flush
// returned, under a context its caller is about to cancel.
func (d *dispatcher) flush(ctx context.Context, hooks []hook) error {
	jobs := make(chan hook)
	for range d.workers {
		go func() { // want `goroutine uses the context ctx of flush, which can return without waiting for it`
			for h := range jobs {
				if err := d.deliver(ctx, h); err != nil {
					d.failed(h, err)
				}
			}
		}()
	}
	defer close(jobs)
	for _, h := range hooks {
		select {
		case jobs <- h:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// flushWaited waits for the workers once the job channel is closed.
func (d *dispatcher) flushWaited(ctx context.Context, hooks []hook) error {
	jobs := make(chan hook)
	var wg sync.WaitGroup
	for range d.workers {
		wg.Go(func() {
			for h := range jobs {
				if err := d.deliver(ctx, h); err != nil {
					d.failed(h, err)
				}
			}
		})
	}
	defer wg.Wait()
	defer close(jobs)
	for _, h := range hooks {
		select {
		case jobs <- h:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// flushCounted counts its workers out through a done channel on every path.
func (d *dispatcher) flushCounted(ctx context.Context, hooks []hook) {
	jobs := make(chan hook)
	done := make(chan struct{})
	for range d.workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for h := range jobs {
				_ = d.deliver(ctx, h)
			}
		}()
	}
	for _, h := range hooks {
		jobs <- h
	}
	close(jobs)
	for range d.workers {
		<-done
	}
}

// serveQueue ranges over a channel it was given: its workers serve the
// owner of that channel, whose lifetime is not this call's.
func (d *dispatcher) serveQueue(ctx context.Context, jobs <-chan hook) {
	for range d.workers {
		go func() {
			for h := range jobs {
				_ = d.deliver(ctx, h)
			}
		}()
	}
}
