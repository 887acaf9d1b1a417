package retry

import (
	"context"
	"errors"
	"os"
	"time"
)

// renameWithRetry retries a rename a few times while another process holds
// the file. There is no context anywhere near this call; the sleeps are a
// few milliseconds and bounded.
//
// ok: retrycancel
func renameWithRetry(from, to string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = os.Rename(from, to); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond << i)
	}
	return err
}

// Fetcher fetches one page.
type Fetcher func(ctx context.Context, page int) ([]byte, error)

// fetchWithAttemptTimeout gives each attempt its own short deadline and
// retries when that per-attempt deadline expires, but only while the
// caller's context is still live.
//
// ok: retrycancel
func fetchWithAttemptTimeout(ctx context.Context, fetch Fetcher, page int, perAttempt time.Duration) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, perAttempt)
		b, err := fetch(actx, page)
		cancel()
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) || attempt >= 4 {
			return nil, err
		}
		if err := sleepCtx(ctx, 100*time.Millisecond<<attempt); err != nil {
			return nil, err
		}
	}
}

// drainEvents reads from events until ctx is done, using a labelled break to
// leave the loop from the select.
//
// ok: retrycancel
func drainEvents(ctx context.Context, events <-chan string, sink func(string)) int {
	n := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case ev, ok := <-events:
			if !ok {
				break loop
			}
			sink(ev)
			n++
		}
	}
	return n
}

// pollUntilReady skips not-ready responses with continue; the loop
// condition itself tests the context on every pass.
//
// ok: retrycancel
func pollUntilReady(ctx context.Context, ready func(context.Context) (bool, error), every time.Duration) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for ctx.Err() == nil {
		ok, err := ready(ctx)
		if err != nil || !ok {
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			continue
		}
		return nil
	}
	return ctx.Err()
}
