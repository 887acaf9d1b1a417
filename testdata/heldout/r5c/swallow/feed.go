package swallow

import (
	"context"
	"io"
)

// Update is one change delivered by a feed.
type Update struct {
	Key   string
	Value []byte
}

// Subscription delivers updates until its context ends.
type Subscription struct {
	ctx     context.Context
	updates <-chan Update
}

// Subscribe wraps an update channel; the subscription ends with ctx.
// ok: swallowcancel
func Subscribe(ctx context.Context, updates <-chan Update) *Subscription {
	return &Subscription{ctx: ctx, updates: updates}
}

// Next returns the next update. When the subscription's context ends it
// returns a zero update and a nil error, so a consumer looping until Next
// fails applies empty updates forever instead of stopping on the cancellation.
// From: cockroachdb/cockroach#96563
// bug: swallowcancel
func (s *Subscription) Next() (Update, error) {
	select {
	case u, ok := <-s.updates:
		if !ok {
			return Update{}, io.EOF
		}
		return u, nil
	case <-s.ctx.Done():
		return Update{}, nil
	}
}

// Recv is the near-miss of Next: when the subscription's context ends it
// returns s.ctx.Err(), so the consumer's loop stops with the cancellation.
// From: cockroachdb/cockroach#96563
// ok: swallowcancel
func (s *Subscription) Recv() (Update, error) {
	select {
	case u, ok := <-s.updates:
		if !ok {
			return Update{}, io.EOF
		}
		return u, nil
	case <-s.ctx.Done():
		return Update{}, s.ctx.Err()
	}
}
