package untracked

import (
	"context"
	"sync"
)

type Dispatcher struct {
	sink Sink
}

// One goroutine per job, each with the caller's context; nothing waits.
//
// bug: untrackedgo
func (d *Dispatcher) DispatchAll(ctx context.Context, jobs []Event) {
	for _, j := range jobs {
		go d.sink.Emit(ctx, j)
	}
}

// The goroutine writes the named result; the function returns first.
//
// bug: untrackedgo
func (d *Dispatcher) TryEmit(ctx context.Context, e Event) (err error) {
	go func() {
		err = d.sink.Emit(ctx, e)
	}()
	return
}

// waitAll joins every goroutine counted on wg.
//
// ok: untrackedgo
func waitAll(wg *sync.WaitGroup) {
	wg.Wait()
}

// Joined through a helper.
//
// ok: untrackedgo
func (d *Dispatcher) DispatchAllOK(ctx context.Context, jobs []Event) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = d.sink.Emit(ctx, j)
		}()
	}
	waitAll(&wg)
}

// ok: untrackedgo
func (d *Dispatcher) TryEmitOK(ctx context.Context, e Event) error {
	errc := make(chan error, 1)
	go func() {
		errc <- d.sink.Emit(ctx, e)
	}()
	return <-errc
}
