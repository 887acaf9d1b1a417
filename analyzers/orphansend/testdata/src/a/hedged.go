package a

import (
	"context"
	"time"
)

type revision struct {
	rev int
	err error
}

func headRevision(ctx context.Context) (int, error) { return 0, ctx.Err() }

// One literal started twice (a hedged request): two senders on an
// unbuffered channel, and the function takes at most one answer.
func hedged(ctx context.Context, after time.Duration) (int, error) {
	results := make(chan revision)
	run := func() {
		rev, err := headRevision(ctx)
		results <- revision{rev, err} // want `the send on results blocks forever once hedged stops receiving`
	}
	go run()
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case r := <-results:
		return r.rev, r.err
	case <-t.C:
		go run()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case r := <-results:
		return r.rev, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Room for both answers: neither sender can block.
func hedgedBuffered(ctx context.Context, after time.Duration) (int, error) {
	results := make(chan revision, 2)
	run := func() {
		rev, err := headRevision(ctx)
		results <- revision{rev, err}
	}
	go run()
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case r := <-results:
		return r.rev, r.err
	case <-t.C:
		go run()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case r := <-results:
		return r.rev, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
