package retry

import (
	"context"
	"time"
)

type Queue interface {
	Next(ctx context.Context) (string, error)
}

// A consumer loop that leaves on the bound call's error.
//
// ok: retrycancel
func (a *Agent) Consume(ctx context.Context, q Queue, handle func(string)) error {
	for {
		job, err := q.Next(ctx)
		if err != nil {
			return err
		}
		handle(job)
	}
}

// A counted loop over indexes of a slice is a collection walk.
//
// ok: retrycancel
func (a *Agent) RegisterEach(ctx context.Context, names []string) error {
	for i := 0; i < len(names); i++ {
		if err := a.reg.Register(ctx, names[i], a.addr); err != nil {
			return err
		}
	}
	return nil
}

// A wait helper that reports whether the context ended.
//
// ok: retrycancel
func waitOrDone(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ok: retrycancel
func (a *Agent) RegisterPatiently(ctx context.Context, name string) error {
	for {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		if !waitOrDone(ctx, a.backoff) {
			return ctx.Err()
		}
	}
}
